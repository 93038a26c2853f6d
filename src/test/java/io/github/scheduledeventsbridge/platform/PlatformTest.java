package io.github.scheduledeventsbridge.platform;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import org.junit.jupiter.api.Test;

import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What differs between Linux and Windows outside storage: defaults, environment names, boot time, host name. */
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
    void thisJvmIsLinuxByItsOwnNameAndATestPlatformSaysWhichItIs() {
        assertThat(Platform.current().windows()).as("the tests run on Linux").isFalse();
        assertThat(Platform.current().name()).isEqualTo(System.getProperty("os.name"));
        assertThat(windows(Map.of()).windows()).isTrue();
        assertThat(windows(Map.of()).name()).isEqualTo("Windows");
        assertThat(Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of()).name()).isEqualTo("Linux");
    }

    @Test
    void theHostNameIsTheKernelsOnLinuxAndComputerNameOnWindows() throws Exception {
        try (FileSystem unix = Jimfs.newFileSystem(Configuration.unix());
             FileSystem ntfs = Jimfs.newFileSystem(Configuration.windows())) {
            Map<String, String> environment = Map.of("COMPUTERNAME", "FROM-ENV");
            Platform linux = Platform.of(OperatingSystem.LINUX, unix, environment);
            assertThat(linux.hostName()).as("no kernel file: the environment").contains("FROM-ENV");
            Path kernel = unix.getPath("/proc/sys/kernel/hostname");
            Files.createDirectories(kernel.getParent());
            Files.writeString(kernel, "vm-7.internal\n");
            assertThat(linux.hostName()).contains("vm-7.internal\n");
            Files.writeString(kernel, " \n");
            assertThat(linux.hostName()).as("a blank kernel name: the environment").contains("FROM-ENV");
            assertThat(Platform.of(OperatingSystem.LINUX, unix, Map.of()).hostName()).isEmpty();

            assertThat(Platform.of(OperatingSystem.WINDOWS, ntfs, Map.of("ComputerName", "WestNO_0")).hostName())
                    .as("Windows' names are case-insensitive").contains("WestNO_0");
            assertThat(Platform.of(OperatingSystem.WINDOWS, ntfs, Map.of()).hostName()).isEmpty();
        }
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
