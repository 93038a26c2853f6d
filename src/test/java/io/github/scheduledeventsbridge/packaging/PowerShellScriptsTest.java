package io.github.scheduledeventsbridge.packaging;

import io.github.scheduledeventsbridge.config.ConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import io.github.scheduledeventsbridge.approval.ApprovalGate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Windows scripts in packaging/windows/, checked without a Windows: no PowerShell can be installed here, so their
 * syntax is checked with tree-sitter's PowerShell grammar (node, installed by bin/install-prerequisites; a missing tool
 * fails the test), and what they must and must not do is read from them. Whether they work is for the Windows
 * acceptance checklist.
 */
class PowerShellScriptsTest {

    private static final Path WINDOWS = Path.of("packaging/windows");

    @Test
    void everyScriptParsesAsPowerShell() throws Exception {
        List<String> files = scripts().stream().map(Path::toString).toList();
        assertThat(files).hasSizeGreaterThanOrEqualTo(5);
        String output = syntaxCheck(files);
        assertThat(output).contains(files.size() + " files, 0 errors");
    }

    @Test
    void theSyntaxCheckFindsABrokenScript(@TempDir Path work) throws Exception {
        Path broken = Files.writeString(work.resolve("broken.ps1"), "param([string] $Name\nif ($Name -eq 'x' { exit 1 }\n");
        assertThat(syntaxCheck(List.of(broken.toString()))).contains("broken.ps1:1:").doesNotContain("0 errors");
    }

    @Test
    void theActionCommandsOfTheWindowsSettingsAreValidPowerShell(@TempDir Path work) throws Exception {
        List<Path> commands = new ArrayList<>();
        Properties settings = uncommentedSettings();
        for (String key : List.of("bridge.action.prepare.command", "bridge.action.recover.command")) {
            commands.add(Files.writeString(work.resolve(key + ".ps1"), settings.getProperty(key)));
        }
        assertThat(syntaxCheck(commands.stream().map(Path::toString).toList())).contains("2 files, 0 errors");
    }

    @Test
    void whatTheAgentHandsPowerShellForACommandIsValidPowerShell(@TempDir Path work) throws Exception {
        String command = uncommentedSettings().getProperty("bridge.action.prepare.command");
        List<String> argv = io.github.scheduledeventsbridge.windows.PowerShellCommand.argv("powershell.exe", command);
        String decoded = new String(java.util.Base64.getDecoder().decode(argv.get(argv.size() - 1)),
                StandardCharsets.UTF_16LE);
        assertThat(decoded).endsWith(command);
        Path script = Files.writeString(work.resolve("encoded-command.ps1"), decoded);
        assertThat(syntaxCheck(List.of(script.toString()))).contains("1 files, 0 errors");
    }

    @Test
    void scriptsAreAsciiSoThatWindowsPowerShellReadsThemAsWritten() throws Exception {
        // Windows PowerShell 5.1 reads a script without a byte order mark in the ANSI code page.
        for (Path script : scripts()) {
            byte[] bytes = Files.readAllBytes(script);
            for (int i = 0; i < bytes.length; i++) {
                assertThat(bytes[i] >= 0).as("%s: byte %d is not ASCII", script, i).isTrue();
            }
        }
    }

    @Test
    void everyScriptStopsAtTheFirstError() throws Exception {
        for (Path script : scripts()) {
            assertThat(Files.readString(script)).as(script.toString())
                    .contains("Set-StrictMode -Version 3.0", "$ErrorActionPreference = 'Stop'", "#Requires -Version 5.1");
        }
        for (String admin : List.of("install.ps1", "uninstall.ps1")) {
            assertThat(Files.readString(WINDOWS.resolve(admin))).contains("#Requires -RunAsAdministrator");
        }
    }

    @Test
    void theApprovalSecretIsNeverAParameterNorPartOfAnyCommandLine() throws Exception {
        String approve = Files.readString(WINDOWS.resolve("approve.ps1"));
        String parameters = approve.substring(approve.indexOf("param("), approve.indexOf("\n)\n"));
        assertThat(Pattern.compile("\\$(\\w+)").matcher(parameters).results().map(m -> m.group(1)))
                .containsExactlyInAnyOrder("EventId", "List", "Url", "SecretFile");
        assertThat(approve).contains("$env:BRIDGE_APPROVAL_SECRET", "HMACSHA256", "\"$timestamp.$body\"",
                "'sha256=' + (($digest | ForEach-Object { $_.ToString('x2') }) -join '')",
                "'X-Bridge-Timestamp'", "'X-Bridge-Signature'");
        assertThat(parameters).contains("[Parameter(Mandatory, Position = 0, ValueFromRemainingArguments, "
                + "ParameterSetName = 'Approve')]", "[Parameter(Mandatory, ParameterSetName = 'List')]");
        for (Path script : scripts()) {
            String text = Files.readString(script);
            // procrun's ++Environment is kept in the registry, which every user may read.
            assertThat(text).as(script.toString()).doesNotContainIgnoringCase("Environment=")
                    .doesNotContainPattern("(?i)-(Approval|Webhook)?Secret\\s+\\$");
        }
    }

    @Test
    void approveRetriesOnlyWithoutAnAnswerSignedAnewAndTakesTheAgentsAlreadyApprovedAsDone() throws Exception {
        String approve = Files.readString(WINDOWS.resolve("approve.ps1"));
        String signing = approve.substring(approve.indexOf("function New-SignedRequest"), approve.indexOf("return $request"));
        assertThat(signing).as("each attempt gets its own timestamp and signature")
                .contains("$timestamp = [DateTimeOffset]::UtcNow", "\"$timestamp.$body\"");
        assertThat(approve).contains("$client.SendAsync((New-SignedRequest))",
                "$status -eq 409 -and $answer -match '" + ApprovalGate.ALREADY_APPROVED + "'");
    }

    @Test
    void theInstallerSetsUpWhatTheServiceNeedsAndLeavesTheDecisionsToThePlanner() throws Exception {
        String install = Files.readString(WINDOWS.resolve("install.ps1"));
        assertThat(install).contains(
                "$Account = \"NT SERVICE\\$ServiceName\"",
                "@('config', $ServiceName, 'obj=', $Account)",
                "@('failure', $ServiceName, 'reset=', '86400', 'actions=', 'restart/5000/restart/10000/restart/60000')",
                "@('failureflag', $ServiceName, '1')",
                "[System.Diagnostics.EventLog]::CreateEventSource($eventSource, 'Application')",
                "$Planner = 'io.github.scheduledeventsbridge.windows.install.InstallPlanner'",
                "winget install Microsoft.OpenJDK.17",
                // SYSTEM and Administrators by SID: the same on a Windows in any language.
                "'*S-1-5-18'", "'*S-1-5-32-544'", "'/inheritance:r'",
                // PowerShell 7 would register the Event Log source with its own message file, gone with it.
                "#Requires -PSEdition Desktop");
        // The service SID type is set before the account that needs it.
        assertThat(install.indexOf("@('sidtype', $ServiceName, 'unrestricted')"))
                .isPositive().isLessThan(install.indexOf("@('config', $ServiceName, 'obj=', $Account)"));
        // Every step the planner can name is applied, and nothing else.
        for (String step : List.of("create-folder", "take-ownership", "secure", "remove-ace", "inherit", "set-aside",
                "create-directory", "copy-default", "event-source", "firewall", "warn")) {
            assertThat(install).as(step).contains("'" + step + "' {");
        }
        assertThat(install).contains("\"clear-registry-value`tOptions9\"");
        // A rule per configured port (the planner names them), nothing else.
        assertThat(Pattern.compile("New-NetFirewallRule").matcher(install).results().count()).isEqualTo(1);
        assertThat(install).contains("-LocalPort $field[2]");
        // The service's options never go through a file; the data folder is never walked through a link.
        assertThat(install).doesNotContain("service-options.txt", "--out").doesNotContain("-Recurse -Force -Path $DataDir")
                .doesNotContainPattern("Get-ChildItem[^\n]*-Recurse");

        String uninstall = Files.readString(WINDOWS.resolve("uninstall.ps1"));
        Matcher removeData = Pattern.compile("Remove-Item -LiteralPath \\$DataDir").matcher(uninstall);
        assertThat(removeData.find()).isTrue();
        // ConfirmImpact High: ShouldProcess asks at the default $ConfirmPreference (High); -Force skips the question.
        assertThat(uninstall).contains("[CmdletBinding(SupportsShouldProcess, ConfirmImpact = 'High')]",
                "if ($Force -and -not $PSBoundParameters.ContainsKey('Confirm')) { $ConfirmPreference = 'None' }")
                .containsOnlyOnce("ShouldProcess(");
        assertThat(uninstall.substring(0, removeData.start())).as("the data is only deleted with -RemoveData")
                .endsWith("$PSCmdlet.ShouldProcess($DataDir, 'Delete the settings, logs, state and every undelivered "
                        + "message')) {\n        ");
    }

    @Test
    void theWindowsSettingsNameOnlyKnownKeysTurnTheEventLogOnAndLoseNoBackslash() throws Exception {
        Properties settings = uncommentedSettings();
        assertThat(settings.stringPropertyNames()).isNotEmpty()
                .allSatisfy(key -> assertThat(ConfigKeys.packaged().isKnown(key)).as(key).isTrue());
        Properties active = new Properties();
        try (var reader = Files.newBufferedReader(WINDOWS.resolve("bridge.properties"))) {
            active.load(reader);
        }
        assertThat(active).containsEntry("bridge.eventlog.enabled", "true").hasSize(1);
        for (String line : Files.readAllLines(WINDOWS.resolve("bridge.properties"))) {
            if (line.matches("#?bridge\\..*")) {
                assertThat(line).as("a backslash in a value is an escape").doesNotContain("\\");
            }
        }
    }

    /** bridge.properties with every commented-out setting switched on. */
    private static Properties uncommentedSettings() throws IOException {
        StringBuilder text = new StringBuilder();
        for (String line : Files.readAllLines(WINDOWS.resolve("bridge.properties"))) {
            text.append(line.startsWith("#bridge.") ? line.substring(1) : line).append('\n');
        }
        Properties properties = new Properties();
        properties.load(new StringReader(text.toString()));
        return properties;
    }

    private static List<Path> scripts() throws IOException {
        try (Stream<Path> files = Files.walk(WINDOWS)) {
            return files.filter(f -> f.toString().endsWith(".ps1")).sorted().toList();
        }
    }

    /** tree-sitter's PowerShell grammar under node, from the global modules bin/install-prerequisites installs. */
    static String syntaxCheck(List<String> files) throws IOException, InterruptedException {
        Process npm = new ProcessBuilder("npm", "root", "-g").redirectErrorStream(true).start();
        String modules = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(npm.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<String> command = new ArrayList<>(List.of("node", "--liftoff-only",
                Path.of("src/test/resources/powershell-syntax.cjs").toAbsolutePath().toString()));
        command.addAll(files);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("NODE_PATH", modules);
        Process node = builder.start();
        String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(output).as("node ran the grammar (bin/install-prerequisites installs it)").contains(" files, ");
        return output;
    }
}
