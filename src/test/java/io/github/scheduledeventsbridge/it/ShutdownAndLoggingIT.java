package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The packaged agent stopped with SIGTERM during an outage, and its JSON log format. */
class ShutdownAndLoggingIT {

    private static final String A = "AAAAAAAA-1111-1111-1111-111111111111";
    private static final String B = "BBBBBBBB-2222-2222-2222-222222222222";

    @TempDir
    Path work;

    private Map<String, String> env(ScriptedImds imds, WebhookReceiver webhook, String... more) {
        Map<String, String> env = new java.util.LinkedHashMap<>(AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(), "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200", "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_WEBHOOK_URLS", webhook.url(), "BRIDGE_WEBHOOK_SECRET", "s", "BRIDGE_DELIVERY_MAX_BACKOFF", "500"));
        env.putAll(AgentProcess.env(more));
        return env;
    }

    @Test
    void sigtermDuringAWebhookOutageStopsPromptlyAndLosesNothing() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerWith(503);
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm"), Docs.scheduled(B, "Redeploy", "", "vm")));
            AgentProcess first = AgentProcess.start("sigterm", env(imds, webhook), Map.of(), work);
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.failedAttempts().size() >= 2);
            Instant stopping = Instant.now();
            first.close(); // SIGTERM, then waits
            assertThat(Duration.between(stopping, Instant.now())).as("shutdown is bounded").isLessThan(Duration.ofSeconds(20));
            assertThat(first.isAlive()).isFalse();
            assertThat(first.output()).contains("undelivered message(s) for sink webhook").contains("kept in the spool, delivered after the next start");
            assertThat(webhook.delivered()).isEmpty();

            webhook.answerWith(200);
            try (AgentProcess second = AgentProcess.start("sigterm", env(imds, webhook), Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() >= 2);
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
            }
            // Two events, each on its lane (bridge.webhook.concurrency): either may arrive first.
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId).containsExactlyInAnyOrder(A, B);
        }
    }

    @Test
    void sigtermWhileSendingADocumentLeavesOnlyTheUndeliveredForTheNextStart() throws Exception {
        List<String> ids = java.util.stream.IntStream.range(0, 50)
                .mapToObj(i -> String.format("DDDDDDDD-5165-0000-0000-%012d", i)).toList();
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            // One spool document of 50. A healthy receiver gets all of it within the stop's 10 s; this one answers
            // 20 and then nothing, so the stop leaves 30 (4 of them sent, their answers never in).
            imds.serve(Docs.document(2, ids.stream().map(id -> Docs.scheduled(id, "Reboot", "", "vm")).toArray(String[]::new)));
            webhook.holdAfter(20);
            Map<String, String> quickStop = Map.of("camel.main.shutdown-timeout", "2",
                    "camel.component.http.so-timeout", "4000", "camel.component.http.response-timeout", "4000");
            AgentProcess first = AgentProcess.start("sigterm-document", env(imds, webhook), quickStop, work);
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() == 20 && webhook.held() > 0);
            first.close(); // SIGTERM, then waits
            webhook.release();
            assertThat(first.output()).contains("1 spool document(s) rewritten without their 20 message(s)");

            try (AgentProcess second = AgentProcess.start("sigterm-document", env(imds, webhook), Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() >= ids.size());
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
            }
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId).as("each once: none of the "
                    + "delivered ones again after the restart, none lost").containsExactlyInAnyOrderElementsOf(ids);
        }
    }

    /**
     * An EventId holding a line break and an escape sequence (JSON escapes in IMDS's answer), logged by the transition
     * log, the prepare command's [prepare <id>] label and its output: the log shows them escaped on the agent's own
     * lines, and no line of the packaged agent's standard output is one the EventId wrote.
     */
    @Test
    void anEventIdWithALineBreakOrAnEscapeWritesNoLineOfItsOwn() throws Exception {
        String forged = "1999-01-01T00:00:00,000Z ERROR [main] BridgeConfiguration - FORGED";
        String eventId = "F0F0F0F0\\n" + forged + "\\u001b[2J";
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(2, Docs.scheduled(eventId, "Reboot", "", "vm-under-test")));
            try (AgentProcess agent = AgentProcess.start("forged-lines", env(imds, webhook,
                    "BRIDGE_ACTION_PREPARE_COMMAND", "printf 'prepared %s\\n' \"$SEB_EVENT_ID\""), Map.of(), work)) {
                // The prepare's outcome follows the Scheduled transition as a message of its own: at least one.
                await().atMost(Duration.ofSeconds(60)).until(() -> !webhook.delivered().isEmpty()
                        && agent.output().contains("] prepared "));
                String output = agent.output();
                assertThat(output.lines()).noneMatch(line -> line.startsWith(forged.substring(0, 10)) && line.contains("FORGED"));
                assertThat(output).doesNotContain("\u001b")
                        .contains("Scheduled Reboot F0F0F0F0\\n" + forged + "\\u001b[2J")
                        .contains("[prepare F0F0F0F0\\n" + forged + "\\u001b[2J]");
            }
            assertThat(webhook.delivered()).allMatch(m -> m.eventId().equals("F0F0F0F0\n" + forged + "\u001b[2J"));
            assertThat(webhook.delivered().stream().map(WebhookReceiver.Request::transition).toList())
                    .as("the Scheduled transition once, then at most the prepare's outcome")
                    .isIn(List.of("Scheduled"), List.of("Scheduled", "ActionSucceeded"));
        }
    }

    @Test
    void jsonLogsAreOneJsonObjectPerLine() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            try (AgentProcess agent = AgentProcess.start("json-logs", env(imds, webhook, "BRIDGE_LOG_FORMAT", "json"),
                    Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() == 1);
                await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains(A));
                List<String> lines = agent.output().lines().filter(l -> !l.isBlank()).toList();
                assertThat(lines).hasSizeGreaterThan(10);
                for (String line : lines) {
                    JsonNode json = mapper.readTree(line);
                    assertThat(json.path("@timestamp").asText()).as(line).isNotEmpty();
                    assertThat(json.path("log.level").asText()).as(line).isNotEmpty();
                }
                assertThat(lines).anyMatch(l -> l.contains("\"log.logger\":\"io.github.scheduledeventsbridge.transitions\"")
                        && l.contains("Scheduled Reboot " + A));
            }
        }
    }
}
