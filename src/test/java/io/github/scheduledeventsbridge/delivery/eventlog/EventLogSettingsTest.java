package io.github.scheduledeventsbridge.delivery.eventlog;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.Test;

import java.nio.file.FileSystems;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventLogSettingsTest {

    @Test
    void offByDefaultWithTheProductsNameAsSource() {
        EventLogSettings settings = EventLogSettings.read(new SettingsReader(Map.<String, String>of()::get));
        assertThat(settings.enabled()).isFalse();
        assertThat(settings.source()).isEqualTo("scheduled-events-bridge");
    }

    @Test
    void aSourceThatCannotBeARegistryKeyIsRefused() {
        assertThatThrownBy(() -> EventLogSettings.read(new SettingsReader(
                Map.of("bridge.eventlog.source", "Application\\evil")::get)))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessage("Bad configuration: bridge.eventlog.source: 'Application\\evil' is not an Event Log source "
                        + "name (1 to 200 characters, no backslash)");
    }

    @Test
    void onlyWindowsHasAnEventLog() {
        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of());
        assertThatThrownBy(() -> EventLogSink.requireWindows(linux))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessage("Bad configuration: bridge.eventlog.enabled: true needs Windows (it writes to the Windows "
                        + "Event Log) and this is Linux: set it to false, or use another sink");
        assertThatThrownBy(() -> EventLogSink.requireWindows(Platform.current()))
                .as("this JVM, by its own name").hasMessageContaining("and this is " + System.getProperty("os.name") + ":");
        assertThatCode(() -> EventLogSink.requireWindows(Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(),
                Map.of()))).doesNotThrowAnyException();
    }
}
