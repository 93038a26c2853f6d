package io.github.scheduledeventsbridge.windows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Operator commands as powershell.exe argument vectors: nothing in a command can break out of its argument. */
class PowerShellCommandTest {

    private static final String POWERSHELL = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";

    @ParameterizedTest
    @ValueSource(strings = {
            "Write-Output \"double\" 'single' \"it's\" '\"'",
            "$env:SEB_EVENT_ID; $($env:SEB_EVENT_TYPE); ${env:SEB_NOT_BEFORE}",
            "Write-Output `\"backtick`\" `$notAVariable `n",
            "line one\nline two\r\nline three",
            "Write-Output 'Überwachung Ärger — ✓ 日本語 𝄞 emoji 🚀'",
            "cmd /c \"echo %PATH% & echo ^& | more\" ; exit 3",
            "& 'C:\\Program Files\\My App\\prepare.ps1' -Event $env:SEB_EVENT_ID",
            "\\\\server\\share\\\" \\\\\" trailing backslash \\",
            ""})
    void theCommandComesBackExactlyAfterThePrologue(String command) {
        List<String> argv = PowerShellCommand.argv(POWERSHELL, command);

        assertThat(argv).startsWith(POWERSHELL, "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
                "-EncodedCommand").hasSize(7);
        assertThat(PowerShellCommand.decode(argv.get(6))).isEqualTo(PowerShellCommand.PROLOGUE + command);
        // Nothing a command-line parser could split, unquote or expand: no space, quote, backslash, $, ` or %.
        assertThat(argv.subList(1, argv.size())).allMatch(a -> a.matches("[A-Za-z0-9+/=-]+"));
    }

    @Test
    void theEncodingIsUtf16LittleEndianInBase64AsPowerShellDecodesIt() {
        // What PowerShell's own documentation gives for: dir "c:\program files"
        assertThat(PowerShellCommand.encode("dir \"c:\\program files\" "))
                .isEqualTo("ZABpAHIAIAAiAGMAOgBcAHAAcgBvAGcAcgBhAG0AIABmAGkAbABlAHMAIgAgAA==");
    }

    @Test
    void aCommandThatFitsWindowsCommandLineIsTakenAndOneCharacterMoreIsRefusedWithWhatToDo() {
        int n = 11_000;
        while (n < 14_000 && fits("x".repeat(n + 1))) {
            n++;
        }
        int longest = n;
        assertThat(longest).as("the longest command that fits").isBetween(12_000, 12_300);
        assertThat(PowerShellCommand.commandLineLength(PowerShellCommand.argv(POWERSHELL, "x".repeat(longest))))
                .isLessThanOrEqualTo(32_766);
        assertThatThrownBy(() -> PowerShellCommand.argv(POWERSHELL, "x".repeat(longest + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is " + (longest + 1) + " characters long")
                .hasMessageContaining("over Windows' limit of 32,767")
                .hasMessageContaining("put the commands in a .ps1 file");
    }

    @Test
    void theRefusalOfALongCommandNamesTheFolderTheInstallerMakesForScripts() throws Exception {
        assertThat(io.github.scheduledeventsbridge.windows.install.DataFolderPlan.DIRECTORIES)
                .as("the installer makes the actions folder in the data folder").contains("actions");
        assertThatThrownBy(() -> PowerShellCommand.argv(POWERSHELL, "x".repeat(13_000)))
                .hasMessageContaining("& \"$env:ProgramData\\scheduled-events-bridge\\actions\\prepare.ps1\"")
                .hasMessageNotContaining("config\\actions");
    }

    @Test
    void aProgramPathWithSpacesCountsItsQuotesAgainstTheLimit() {
        List<String> argv = List.of("C:\\Program Files\\PowerShell\\7\\pwsh.exe", "-NoProfile", "");
        assertThat(PowerShellCommand.commandLineLength(argv))
                .isEqualTo("\"C:\\Program Files\\PowerShell\\7\\pwsh.exe\" -NoProfile \"\"".length());
    }

    @ParameterizedTest
    @ValueSource(strings = {"powershell", "PowerShell.EXE", "pwsh", "pwsh.exe",
            "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
            "\"C:\\Program Files\\PowerShell\\7\\pwsh.exe\"", "/usr/bin/pwsh"})
    void powerShellIsRecognisedByItsProgramName(String program) {
        assertThat(PowerShellCommand.isPowerShell(program)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/bin/sh", "cmd.exe", "C:\\tools\\powershell-wrapper.cmd", "bash", "powershell_ise.exe"})
    void otherShellsAreNot(String program) {
        assertThat(PowerShellCommand.isPowerShell(program)).isFalse();
    }

    @Test
    void windowsPowerShellIsNamedByItsFullPathUnderSystemRootWhateverTheVariablesCase() {
        assertThat(PowerShellCommand.windowsPowerShell(Map.of("SYSTEMROOT", "D:\\WINDOWS\\")))
                .isEqualTo("D:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
        assertThat(PowerShellCommand.windowsPowerShell(Map.of("SystemRoot", "C:\\Windows")))
                .isEqualTo(POWERSHELL);
        assertThat(PowerShellCommand.windowsPowerShell(Map.of())).isEqualTo(POWERSHELL);
    }

    private static boolean fits(String command) {
        try {
            PowerShellCommand.argv(POWERSHELL, command);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
