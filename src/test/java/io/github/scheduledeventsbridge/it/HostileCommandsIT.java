package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged agent (-Xmx128m, as the tests run it) with commands and inputs that used to crash or wedge it: a
 * 45 MB line without newline, a million lines, a CloudEvent over 64 KiB to a command that never reads it, a NUL in an
 * IMDS field. Each ends with an outcome message, and the agent keeps polling.
 */
class HostileCommandsIT {

    private static final String EVENT = "405711E0-0000-0000-0000-000000000001";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @TempDir
    Path work;

    private AgentProcess agent(ScriptedImds imds, WebhookReceiver webhook, String prepare, String timeout)
            throws IOException {
        return AgentProcess.start("hostile-commands", AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(),
                "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200",
                "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_WEBHOOK_URLS", webhook.url(),
                "BRIDGE_WEBHOOK_SECRET", "hostile-secret",
                "BRIDGE_ACTION_TIMEOUT", timeout,
                "BRIDGE_ACTION_PREPARE_COMMAND", prepare), Map.of(), work);
    }

    /** Runs the prepare for one event and returns its outcome message; the agent must still poll afterwards. */
    private JsonNode outcome(String event, String prepare, String timeout, AgentCheck check) throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("hostile-secret")) {
            imds.serve(Docs.document(1, event));
            try (AgentProcess agent = agent(imds, webhook, prepare, timeout)) {
                await().atMost(Duration.ofSeconds(90)).until(() -> webhook.delivered().stream()
                        .anyMatch(r -> r.transition().startsWith("Action")) || !agent.isAlive());
                assertThat(agent.isAlive()).as("the agent survived; its log: %s", agent.output().lines()
                        .filter(l -> l.contains("Error") || l.contains("Exception")).limit(5).toList()).isTrue();
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(30)).until(() -> imds.documentsServed() >= served + 5);
                check.verify(agent.output());
                return webhook.delivered().stream().filter(r -> r.transition().startsWith("Action"))
                        .findFirst().orElseThrow().json();
            }
        }
    }

    private interface AgentCheck {
        void verify(String log) throws Exception;
    }

    private static long linesOf(String log, String label) {
        return log.lines().filter(l -> l.contains("[" + label + "]")).count();
    }

    @Test
    void aLineOfFortyFiveMegabytesWithoutNewlineIsCutNotHeld() throws Exception {
        JsonNode outcome = outcome(Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test"),
                "head -c 45000000 /dev/zero | tr '\\0' x", "120000",
                log -> assertThat(log).contains("[prepare " + EVENT + "] " + (45_000_000 - 4096)
                        + " bytes of output dropped"));
        assertThat(outcome.path("data").path("outcome").asText()).isEqualTo("succeeded");
    }

    @Test
    void aMillionLinesDoNotBecomeAMillionLogLines() throws Exception {
        JsonNode outcome = outcome(Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test"),
                "yes x | head -n 1000000", "120000", log -> {
                    assertThat(linesOf(log, "prepare " + EVENT)).isBetween(1000L, 3000L);
                    assertThat(log).contains("bytes of output dropped");
                });
        assertThat(outcome.path("data").path("outcome").asText()).isEqualTo("succeeded");
    }

    @Test
    void aCommandThatNeverReadsItsLargeInputStillTimesOut() throws Exception {
        // A 100 KB description makes the CloudEvent on stdin larger than a pipe holds (64 KiB).
        String large = Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")
                .replace("\"test event\"", "\"" + "d".repeat(100_000) + "\"");
        JsonNode outcome = outcome(large, "sleep 300", "3000", log -> { });
        assertThat(outcome.path("data").path("outcome").asText()).isEqualTo("timed-out");
    }

    @Test
    void aNulInAnImdsFieldNeitherSkipsThePrepareNorReachesItsEnvironment() throws Exception {
        Path seen = work.resolve("description");
        String withNul = Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")
                .replace("\"test event\"", "\"before\\u0000after\\nforged line\"");
        JsonNode outcome = outcome(withNul, "printf '%s' \"$SEB_DESCRIPTION\" > " + seen, "120000", log -> { });
        assertThat(outcome.path("data").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(Files.readString(seen)).isEqualTo("before after forged line");
    }
}
