package io.github.scheduledeventsbridge.action;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code bridge.action.shell} as Windows administrators write it, read on Windows' path rules (Jimfs): PowerShell 7 by
 * its default path, which has a space; a quoted program; {@code pwsh} by name, which a service finds only on the PATH
 * it had at boot.
 */
class ActionShellTest {

    private static final String PWSH7 = "C:\\Program Files\\PowerShell\\7\\pwsh.exe";

    private final FileSystem jimfs = Jimfs.newFileSystem(
            Configuration.windows().toBuilder().setRoots("C:\\", "D:\\", "E:\\").build());

    @AfterEach
    void close() throws IOException {
        jimfs.close();
    }

    private Platform windows(Map<String, String> environment) {
        return Platform.of(OperatingSystem.WINDOWS, jimfs, environment);
    }

    private void file(String path) throws IOException {
        Path file = jimfs.getPath(path);
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {'M', 'Z'});
    }

    private static ActionSettings read(Platform platform, String shell) {
        return ActionSettings.read(new SettingsReader(Map.of("bridge.action.shell", shell)::get, platform));
    }

    @Test
    void powerShell7ByItsDefaultPathIsOneProgramDespiteItsSpace() throws IOException {
        file(PWSH7);
        ActionShell shell = read(windows(Map.of()), PWSH7).shell();
        assertThat(shell.words()).containsExactly(PWSH7);
        assertThat(shell.argv("Stop-Service MyApp")).startsWith(PWSH7, "-NoProfile", "-NonInteractive")
                .contains("-EncodedCommand").hasSize(7);
        assertThat(read(windows(Map.of()), "\"" + PWSH7 + "\"").shell().words()).as("quoted as well")
                .containsExactly(PWSH7);
    }

    @Test
    void aMissingPowerShellIsRefusedNamingItsWholePath() {
        assertThatThrownBy(() -> read(windows(Map.of()), PWSH7)).isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("bridge.action.shell").hasMessageContaining(PWSH7 + " is not an executable file");
    }

    @Test
    void aQuotedProgramIsOneWordAndItsArgumentsFollow() throws IOException {
        file("C:\\Program Files\\Git\\bin\\bash.exe");
        assertThat(read(windows(Map.of()), "\"C:/Program Files/Git/bin/bash.exe\"  -euc").shell().argv("true"))
                .containsExactly("C:/Program Files/Git/bin/bash.exe", "-euc", "true");
        assertThatThrownBy(() -> read(windows(Map.of()), "\"C:/Program Files/Git/bin/bash.exe -c"))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("quote");
    }

    @Test
    void aPathWhoseBackslashesAPropertiesFileTookAsEscapesIsRefusedSayingHowToWriteIt() {
        // bridge.action.shell=C:\Program Files\PowerShell\7\pwsh.exe in bridge.properties reads as this:
        assertThatThrownBy(() -> read(windows(Map.of()), "C:Program FilesPowerShell7pwsh.exe"))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("bridge.action.shell").hasMessageContaining("write it with /");
    }

    @Test
    void pwshByNameIsTakenFromTheServicesPathThenFromPowerShell7sFolder() throws IOException {
        file("D:\\Tools\\PowerShell\\pwsh.exe");
        file("E:\\Apps\\PowerShell\\7\\pwsh.exe");
        assertThat(read(windows(Map.of("Path", "C:\\Windows\\system32;\"D:\\Tools\\PowerShell\\\";",
                "ProgramFiles", "E:\\Apps")), "pwsh").shell().words()).as("the PATH first")
                .containsExactly("D:\\Tools\\PowerShell\\pwsh.exe");
        assertThat(read(windows(Map.of("Path", "C:\\Windows\\system32", "ProgramFiles", "E:\\Apps")), "pwsh.exe")
                .shell().words()).as("installed since the boot: not on the service's PATH yet")
                .containsExactly("E:\\Apps\\PowerShell\\7\\pwsh.exe");
    }

    @Test
    void pwshByNameFoundNowhereIsRefusedSayingWhy() {
        assertThatThrownBy(() -> read(windows(Map.of("Path", "C:\\Windows\\system32")), "pwsh"))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.action.shell")
                .hasMessageContaining("after a reboot").hasMessageContaining(PWSH7);
    }

    @Test
    void onLinuxNamesAndWordsAreAsBefore() {
        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of("PATH", "/nowhere"));
        assertThat(ActionShell.parse("pwsh", linux).words()).containsExactly("pwsh");
        assertThat(ActionShell.parse("/bin/bash  -euc", linux).words()).containsExactly("/bin/bash", "-euc");
        assertThat(ActionShell.parse("/opt/microsoft/powershell/7/pwsh", linux).words())
                .containsExactly("/opt/microsoft/powershell/7/pwsh");
    }
}
