package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A bad configuration stops start-up with one clear line naming the key, and a non-zero exit code. */
class ConfigurationIT {

    @TempDir
    Path work;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "bridge.imds.poll-interval | 100      | below the minimum of 200 ms",
            "bridge.filter.resources   | some     | neither 'all' nor 'own'",
            "bridge.webhook.urls       | ftp://x  | not an http(s) URL",
            "bridge.imds.timeout       | soon     | not a number of milliseconds",
            "bridge.simulator.scenarios| nope     | nope"})
    void aBadSystemPropertyStopsStartUp(String key, String value, String reason) throws Exception {
        try (AgentProcess agent = AgentProcess.start("bad-config", Map.of(),
                Map.of(key, value, "bridge.state.dir", work.resolve("s").toString(),
                        "bridge.simulator.enabled", "true"), work)) {
            assertThat(agent.waitForExit(60)).isNotZero();
            assertThat(agent.output()).contains("Bad configuration: " + key + ": ").contains(reason);
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

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "x                           | at least 16 are required",
            "change-me                   | placeholder",
            "change-me-to-something-long | placeholder"})
    void aWeakOrPlaceholderManagementPasswordStopsStartUpWithOneLine(String password, String reason) throws Exception {
        try (AgentProcess agent = AgentProcess.start("weak-management-password", AgentProcess.env(
                "BRIDGE_MANAGEMENT_USERNAME", "operator", "BRIDGE_MANAGEMENT_PASSWORD", password,
                "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            String output = agent.output();
            assertThat(output.lines().filter(l -> l.contains("Bad configuration"))).hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains("Bad configuration: bridge.management.password: ")
                            .contains(reason).doesNotContain(password.length() > 1 ? password : "\u0000"));
            assertThat(output).doesNotContain("\tat ");
        }
    }

    @Test
    void systemPropertiesBeatEnvironmentVariablesWhichBeatTheConfigFile() throws Exception {
        Path file = work.resolve("bridge.properties");
        java.nio.file.Files.writeString(file, "bridge.imds.poll-interval=100\nbridge.filter.resources=bogus\n");
        Map<String, String> env = AgentProcess.env("BRIDGE_IMDS_POLL_INTERVAL", "300",
                "BRIDGE_FILTER_RESOURCES", "own", "BRIDGE_STATE_DIR", work.resolve("s").toString());
        // The file's two bad values are overridden by valid environment variables: the agent runs.
        try (AgentProcess agent = AgentProcess.start("precedence-ok", env,
                Map.of("bridge.config", file.toString(), "bridge.simulator.enabled", "true"), work)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains("every 300 ms"));
            assertThat(agent.output()).contains("filter own").doesNotContain("Bad configuration");
        }
        // A bad -D value wins over the valid environment variable.
        try (AgentProcess agent = AgentProcess.start("precedence-bad", env,
                Map.of("bridge.config", file.toString(), "bridge.imds.poll-interval", "150"), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            assertThat(agent.output()).contains("Bad configuration: bridge.imds.poll-interval: 150 is below");
        }
    }

    @Test
    void secretsNeverReachTheLogEvenWhileDeliveriesFail() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); ServerSocket closed = new ServerSocket(0)) {
            imds.serve(Docs.document(2, Docs.scheduled("DDDDDDDD-0000-0000-0000-000000000001", "Reboot", "", "vm")));
            int deadPort = closed.getLocalPort();
            closed.close();
            try (AgentProcess agent = AgentProcess.start("secrets", AgentProcess.env(
                    "BRIDGE_IMDS_URL", imds.url(),
                    "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                    "BRIDGE_WEBHOOK_SECRET", "top-secret-value-123",
                    "BRIDGE_WEBHOOK_URLS", "http://127.0.0.1:" + deadPort + "/services/T0/B0/secret-path-xyz?token=tok-789",
                    "BRIDGE_DELIVERY_INITIAL_BACKOFF", "20",
                    "BRIDGE_DELIVERY_MAX_BACKOFF", "50",
                    "BRIDGE_STATE_DIR", work.resolve("s").toString()), Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains("Failed delivery"));
                assertThat(agent.output())
                        .doesNotContain("top-secret-value-123")
                        .doesNotContain("secret-path-xyz")
                        .doesNotContain("tok-789");
            }
        }
    }
}
