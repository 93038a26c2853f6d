package io.github.scheduledeventsbridge.platform;

import org.junit.jupiter.api.Test;

import java.nio.file.FileSystems;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What differs between Linux and Windows outside storage: defaults, environment names, boot time. */
class PlatformTest {

    private static Platform windows(Map<String, String> environment) {
        return Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(), environment);
    }

    @Test
    void theSystemIsToldFromItsName() {
        assertThat(OperatingSystem.named("Windows Server 2022")).isEqualTo(OperatingSystem.WINDOWS);
        assertThat(OperatingSystem.named("Windows 11")).isEqualTo(OperatingSystem.WINDOWS);
        assertThat(OperatingSystem.named("Linux")).isEqualTo(OperatingSystem.LINUX);
        assertThat(OperatingSystem.named(null)).isEqualTo(OperatingSystem.LINUX);
    }

    @Test
    void onWindowsTheStateAndConfigurationLiveUnderProgramDataNotInTheWorkingDirectory() {
        Platform custom = windows(Map.of("ProgramData", "D:\\Data"));
        assertThat(custom.defaultStateDir()).isEqualTo("D:\\Data\\scheduled-events-bridge");
        assertThat(custom.defaultConfigFile()).contains("D:\\Data\\scheduled-events-bridge\\bridge.properties");
        assertThat(windows(Map.of()).defaultStateDir()).isEqualTo("C:\\ProgramData\\scheduled-events-bridge");

        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of("PROGRAMDATA", "/x"));
        assertThat(linux.defaultStateDir()).isEqualTo("./data");
        assertThat(linux.defaultConfigFile()).isEmpty();
    }

    @Test
    void environmentNamesAreCaseInsensitiveOnWindowsOnly() {
        Map<String, String> set = Map.of("Bridge_Imds_Url", "http://a/", "bridge_state_dir", "x", "Path", "C:\\");
        assertThat(windows(set).environment())
                .containsOnly(Map.entry("BRIDGE_IMDS_URL", "http://a/"), Map.entry("BRIDGE_STATE_DIR", "x"),
                        Map.entry("PATH", "C:\\"));
        assertThat(Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), set).environment()).isEqualTo(set);
    }

    @Test
    void windowsBootTimeIsNowMinusTheTickCountInWholeSeconds() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-20T10:15:00.750Z"), ZoneOffset.UTC);
        long threeDays = Duration.ofDays(3).plusMillis(250).toMillis();

        assertThat(new WindowsBootTime(() -> threeDays, clock).get()).isEqualTo(Instant.parse("2026-11-17T10:15:00Z"));
    }

    @Test
    void windowsBootTimeIsUnknownRatherThanAFailureWhereKernel32CannotBeCalled() {
        // This JVM runs on Linux: there is no kernel32 to load.
        assertThat(WindowsBootTime.kernel32().get()).isNull();
        assertThat(windows(Map.of()).bootTime()).isInstanceOf(WindowsBootTime.class);
    }
}
