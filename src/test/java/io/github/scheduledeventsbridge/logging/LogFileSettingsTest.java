package io.github.scheduledeventsbridge.logging;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.BridgeSettings;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where the log goes: standard output on Linux, rolled files in the logs folder beside the state on Windows. */
class LogFileSettingsTest {

    @TempDir
    Path tmp;

    private static LogFileSettings read(Platform platform, Path stateDir, Map<String, String> values) {
        return BridgeSettings.logFiles(new SettingsReader(values::get, platform), stateDir);
    }

    @Test
    void linuxKeepsStandardOutputAndWindowsRollsFilesInTheLogsFolderByDefault() throws IOException {
        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of());
        assertThat(read(linux, tmp, Map.of()).dir()).isEmpty();
        try (FileSystem jimfs = Jimfs.newFileSystem(Configuration.windows())) {
            Platform windows = Platform.of(OperatingSystem.WINDOWS, jimfs, Map.of());
            LogFileSettings settings = read(windows, jimfs.getPath("C:\\ProgramData\\scheduled-events-bridge"), Map.of());
            assertThat(settings.dir()).contains(jimfs.getPath("C:\\ProgramData\\scheduled-events-bridge\\logs"));
            assertThat(settings.fileSize()).isEqualTo(10L * 1024 * 1024);
            assertThat(settings.fileCount()).isEqualTo(10);
            assertThat(settings).hasToString("C:\\ProgramData\\scheduled-events-bridge\\logs\\scheduled-events-bridge.log"
                    + " (rolled at 10485760 bytes, 10 files kept)");
            assertThat(read(windows, jimfs.getPath("C:\\Data"), Map.of("bridge.log.dir", "stdout")).dir()).isEmpty();
        }
    }

    @Test
    void aFolderSizeAndCountAreTakenAndNonsenseIsRefusedNamingTheKey() {
        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of());
        LogFileSettings settings = read(linux, tmp, Map.of("bridge.log.dir", tmp.resolve("logs").toString(),
                "bridge.log.file-size", "65536", "bridge.log.file-count", "1"));
        assertThat(settings.dir()).contains(tmp.resolve("logs"));
        assertThat(settings.fileSize()).isEqualTo(65_536);
        assertThat(settings.fileCount()).isEqualTo(1);
        assertThatThrownBy(() -> read(linux, tmp, Map.of("bridge.log.file-size", "65535")))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.log.file-size");
        assertThatThrownBy(() -> read(linux, tmp, Map.of("bridge.log.file-count", "0")))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.log.file-count");
        assertThatThrownBy(() -> read(linux, tmp, Map.of("bridge.log.file-count", "1001")))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.log.file-count");
    }
}
