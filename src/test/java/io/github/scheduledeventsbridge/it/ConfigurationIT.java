package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A bad configuration stops the packaged jar's start-up with one clear line naming the key, and exit status 2: one run
 * of the jar per kind of refusal (a -D value, an environment variable, a mistyped key in the real environment, a file
 * read before Camel starts, a port, a weak secret, JSON log mode, a state file of another user). The rows of each kind
 * run in-process through the same start (StartUpRefusalsTest).
 */
class ConfigurationIT {

    @TempDir
    Path work;

    @Test
    void aBadSystemPropertyStopsStartUp() throws Exception {
        try (AgentProcess agent = AgentProcess.start("bad-config", Map.of(),
                Map.of("bridge.imds.poll-interval", "100", "bridge.state.dir", work.resolve("s").toString(),
                        "bridge.simulator.enabled", "true"), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(agent.output()).contains("Bad configuration: bridge.imds.poll-interval: ")
                    .contains("below the minimum of 200 ms")
                    // Nobody sent a signal: the exit after a refusal must not be logged as one.
                    .doesNotContain("SIGTERM").doesNotContain("shutdown hook");
        }
    }

    @Test
    void aDrainPortThatCannotBeBoundIsOneLineAndExitTwo() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0);
             AgentProcess agent = AgentProcess.start("drain-port", AgentProcess.env(
                     "BRIDGE_DRAIN_PORT", Integer.toString(taken.getLocalPort()),
                     "BRIDGE_SIMULATOR_ENABLED", "true", "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(refusal(agent.output())).contains("Bad configuration: bridge.drain.port: cannot listen on 0.0.0.0:"
                    + taken.getLocalPort());
            assertThat(agent.output()).doesNotContain("\tat ").doesNotContain("SIGTERM");
        }
    }

    @Test
    void aBadEnvironmentVariableStopsStartUpToo() throws Exception {
        try (AgentProcess agent = AgentProcess.start("bad-env", AgentProcess.env(
                "BRIDGE_IMDS_POLL_INTERVAL", "100", "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(agent.output()).contains("Bad configuration: bridge.imds.poll-interval: 100 is below");
        }
    }

    @Test
    void aPlaceholderManagementPasswordStopsStartUpWithOneLineWithoutIt() throws Exception {
        String password = "change-me-to-something-long";
        try (AgentProcess agent = AgentProcess.start("weak-management-password", AgentProcess.env(
                "BRIDGE_MANAGEMENT_USERNAME", "operator", "BRIDGE_MANAGEMENT_PASSWORD", password,
                "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            String output = agent.output();
            assertThat(output.lines().filter(l -> l.contains("Bad configuration"))).hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains("Bad configuration: bridge.management.password: ")
                            .contains("placeholder"));
            assertThat(output).doesNotContain(password);
            assertThat(output).doesNotContain("\tat ");
        }
    }

    /** Which value wins when the agent runs; a bad -D value winning is refused in-process (StartUpRefusalsTest). */
    @Test
    void environmentVariablesBeatTheConfigFile() throws Exception {
        Path file = work.resolve("bridge.properties");
        Files.writeString(file, "bridge.imds.poll-interval=100\nbridge.filter.resources=bogus\n");
        Map<String, String> env = AgentProcess.env("BRIDGE_IMDS_POLL_INTERVAL", "300",
                "BRIDGE_FILTER_RESOURCES", "own", "BRIDGE_STATE_DIR", work.resolve("s").toString());
        // The file's two bad values are overridden by valid environment variables: the agent runs.
        try (AgentProcess agent = AgentProcess.start("precedence-ok", env,
                Map.of("bridge.config", file.toString(), "bridge.simulator.enabled", "true"), work)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains("every 300 ms"));
            assertThat(agent.output()).contains("filter own").doesNotContain("Bad configuration");
        }
    }

    /**
     * As after the documented recipe went wrong: the settings file sets a secret and the service manager's
     * environment file holds more, both readable by every local user. Each is named at start, its secret never;
     * once they are private (the settings file still readable by its group, as the agent may need), nothing is said.
     */
    @Test
    void aSecretsFileEveryLocalUserCanReadIsWarnedAboutWithoutItsSecret() throws Exception {
        String secret = "9f4c2b7e1d8a6035c4e2f1b0a9d8c7e6-webhook";
        Path settings = Files.writeString(work.resolve("bridge.properties"), "bridge.webhook.secret=" + secret + "\n");
        Path environment = Files.writeString(work.resolve("environment"), "BRIDGE_APPROVAL_SECRET=" + secret + "\n");
        Map<String, String> env = AgentProcess.env("BRIDGE_ENVIRONMENT_FILE", environment.toString(),
                "BRIDGE_STATE_DIR", work.resolve("s").toString());
        Map<String, String> properties = Map.of("bridge.config", settings.toString(), "bridge.simulator.enabled", "true");
        for (Path file : List.of(settings, environment)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }
        try (AgentProcess agent = AgentProcess.start("open-secret-files", env, properties, work)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains("Polling "));
            assertThat(agent.output())
                    .contains("WARN", settings + " gives the agent bridge.webhook.secret and every local user can read it"
                            + " (mode rw-r--r--): make it private, e.g. sudo chmod o-rwx " + settings)
                    .contains(environment + " gives the agent its BRIDGE_* variables (bridge.environment-file) and every"
                            + " local user can read it (mode rw-r--r--)")
                    .doesNotContain(secret);
        }
        Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("rw-r-----"));
        Files.setPosixFilePermissions(environment, PosixFilePermissions.fromString("rw-------"));
        try (AgentProcess agent = AgentProcess.start("private-secret-files", env, properties, work)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains("Polling "));
            assertThat(agent.output()).doesNotContain("every local user can read it").doesNotContain(secret);
        }
    }

    /** The process's own environment is scanned for BRIDGE_* names; -D and file typos: StartUpRefusalsTest. */
    @Test
    void aMistypedEnvironmentVariableStopsStartUpNamingItAndTheNearestKey() throws Exception {
        try (AgentProcess agent = AgentProcess.start("typo-env", AgentProcess.env("BRIDGE_WEBHOOK_URL", "http://127.0.0.1:9/"),
                Map.of("bridge.state.dir", work.resolve("s").toString()), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(refusal(agent.output())).contains("Bad configuration: BRIDGE_WEBHOOK_URL: is not a known key")
                    .contains("did you mean BRIDGE_WEBHOOK_URLS?").contains("(from environment variable BRIDGE_WEBHOOK_URL");
        }
    }

    @Test
    void aMissingConfigFileIsOneLineAndExitTwoNotAStackTrace() throws Exception {
        Path missing = work.resolve("nowhere.properties");
        try (AgentProcess agent = AgentProcess.start("missing-file", Map.of(),
                Map.of("bridge.config", missing.toString()), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(agent.output()).contains("Bad configuration: bridge.config: " + missing + " is not a readable file"
                    + " (from -Dbridge.config)").doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void inJsonLogModeTheRefusalIsJsonNamingKeyAndSource() throws Exception {
        try (AgentProcess agent = AgentProcess.start("json-refusal", AgentProcess.env("BRIDGE_LOG_FORMAT", "json",
                "BRIDGE_IMDS_POLL_INTERVAL", "100", "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            String line = agent.output().lines().filter(l -> l.contains("Bad configuration")).findFirst().orElseThrow();
            var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
            assertThat(json.get("log.level").asText()).isEqualTo("ERROR");
            assertThat(json.get("bridge.config.key").asText()).isEqualTo("bridge.imds.poll-interval");
            assertThat(json.get("bridge.config.source").asText()).isEqualTo("environment variable BRIDGE_IMDS_POLL_INTERVAL");
        }
    }

    @Test
    void aLogFormatGivenAsSystemPropertyBeatsTheEnvironmentInLogsAndRefusalsAlike() throws Exception {
        try (AgentProcess agent = AgentProcess.start("log-format-precedence", AgentProcess.env("BRIDGE_LOG_FORMAT", "json",
                "BRIDGE_IMDS_POLL_INTERVAL", "100", "BRIDGE_STATE_DIR", work.resolve("s").toString()),
                Map.of("bridge.log.format", "text"), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(agent.output().lines().filter(l -> !l.isBlank())).isNotEmpty()
                    .noneMatch(l -> l.startsWith("{"));
            assertThat(refusal(agent.output())).startsWith("Bad configuration: bridge.imds.poll-interval");
        }
    }

    @Test
    void theStartUpLineNamesTheImdsTheAgentReallyPolls() throws Exception {
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(1));
            Path file = work.resolve("bridge.properties");
            Files.writeString(file, "bridge.imds.url=http://127.0.0.1:9/from-file\n");
            Map<String, String> env = AgentProcess.env("BRIDGE_IMDS_URL", "http://127.0.0.1:9/from-env",
                    "BRIDGE_STATE_DIR", work.resolve("s").toString());
            try (AgentProcess agent = AgentProcess.start("summary", env, Map.of("bridge.config", file.toString(),
                    "bridge.imds.url", imds.url(), "bridge.imds.instance-url", imds.instanceUrl()), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.polls() >= 2);
                assertThat(agent.output()).contains("Polling " + imds.url() + " every").doesNotContain("from-env")
                        .doesNotContain("from-file");
            }
        }
    }

    @Test
    void aStateFileThisUserCannotReadStopsStartUpInsteadOfBeingMovedAside() throws Exception {
        Path state = work.resolve("s");
        Files.createDirectories(state);
        Path stateFile = state.resolve("state.json");
        Files.writeString(stateFile, "{}");
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxrwx"));
        String javaBinary = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>();
        String mode;
        if ("root".equals(System.getProperty("user.name"))) {
            // Root reads everything: run the agent as nobody, as after a test run as root left the file behind.
            mode = "rw-------";
            command.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        } else {
            mode = "---------";
        }
        Files.setPosixFilePermissions(stateFile, PosixFilePermissions.fromString(mode));
        command.add(javaBinary);
        command.addAll(AgentProcess.sharedArchiveOptions());
        command.addAll(List.of("-Xmx128m", "-Dbridge.state.dir=" + state, "-Dbridge.management.port=0",
                "-jar", AgentProcess.jar().toAbsolutePath().toString()));
        Process process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(output).isEqualTo(2);
        assertThat(refusal(output)).contains("Bad configuration: bridge.state.dir: " + stateFile
                + " cannot be read by this user (owner " + System.getProperty("user.name") + ", mode " + mode + ")");
        assertThat(Files.readString(stateFile)).isEqualTo("{}");
        try (var siblings = Files.list(state)) {
            assertThat(siblings.map(p -> p.getFileName().toString())).containsExactly("state.json");
        }
    }

    @Test
    void helpListsEveryKeyWithItsDefaultAndVersionPrintsTheVersion() throws Exception {
        String help = runJar("--help");
        for (var key : io.github.scheduledeventsbridge.config.ConfigKeys.packaged().all()) {
            assertThat(help).contains(key.name() + "=" + key.defaultValue() + "\n");
        }
        assertThat(help).contains("Usage: java [-Dkey=value ...] -jar scheduled-events-bridge.jar");
        assertThat(runJar("--version").strip()).matches("scheduled-events-bridge \\d+\\.\\d+\\.\\d+.*");
    }

    private String runJar(String argument) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(AgentProcess.sharedArchiveOptions());
        command.addAll(List.of("-jar", AgentProcess.jar().toAbsolutePath().toString(), argument));
        Process process = new ProcessBuilder(command)
                .directory(work.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(output).isZero();
        return output;
    }

    /** The refusal is the one line that says "Bad configuration". */
    private static String refusal(String output) {
        return output.lines().filter(l -> l.contains("Bad configuration")).reduce((a, b) -> a + "\n" + b).orElse(output);
    }

    @Test
    void secretsNeverReachTheLogEvenWhileDeliveriesFail() throws Exception {
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(2, Docs.scheduled("DDDDDDDD-0000-0000-0000-000000000001", "Reboot", "", "vm")));
            int deadPort = FreePorts.unused();
            try (AgentProcess agent = AgentProcess.start("secrets", AgentProcess.env(
                    "BRIDGE_IMDS_URL", imds.url(),
                    "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                    "BRIDGE_WEBHOOK_SECRET", "top-secret-value-123",
                    "BRIDGE_WEBHOOK_URLS", "http://127.0.0.1:" + deadPort + "/services/T0/B0/secret-path-xyz?token=tok-789",
                    "BRIDGE_DELIVERY_INITIAL_BACKOFF", "20",
                    "BRIDGE_DELIVERY_MAX_BACKOFF", "50",
                    "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains(" is failing: "));
                assertThat(agent.output())
                        .doesNotContain("top-secret-value-123")
                        .doesNotContain("secret-path-xyz")
                        .doesNotContain("tok-789");
            }
        }
    }
}
