package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What a fleet operator sees in the first hour (issue 15): versions, logs, readiness details, metrics. */
class OperatorFirstHourTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EVENT = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    static String get(InProcessAgent agent, String path) throws Exception {
        int port = agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    @Test
    void theVersionIsInTheFirstLineTheMetricsTheReadinessDetailsAndTheUserAgent() throws Exception {
        String version = BridgeVersion.current();
        assertThat(version).isNotEqualTo("unknown");
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> !webhook.delivered().isEmpty());
                assertThat(webhook.delivered().get(0).userAgent()).isEqualTo("scheduled-events-bridge/" + version);
                assertThat(log.lines()).anyMatch(l -> l.equals("INFO scheduled-events-bridge " + version
                        + " (commit " + BridgeVersion.commit() + ") starting"));
                assertThat(get(agent, "/metrics")).contains("bridge_build_info{")
                        .containsPattern("bridge_build_info\\{[^}]*version=\"" + java.util.regex.Pattern.quote(version)
                                + "\"[^}]*\\} 1(\\.0)?\n");
                JsonNode ready = JSON.readTree(get(agent, "/observe/health/ready?details"));
                assertThat(ready.path("version").asText()).isEqualTo(version);
                assertThat(ready.path("commit").asText()).isEqualTo(BridgeVersion.commit());
                assertThat(get(agent, "/observe/health/ready")).doesNotContain(version);
            }
        }
    }

    private static String events(int count) {
        String[] events = new String[count];
        for (int i = 0; i < count; i++) {
            events[i] = Docs.scheduled(String.format("AAAAAAAA-0000-0000-0000-%012d", i), "Reboot", NOT_BEFORE, "vm-under-test");
        }
        return Docs.document(1, events);
    }

    @Test
    void anOutageIsSummarisedInOurWordsAndItsRecoveryIsLogged() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerWith(503);
            imds.serve(events(3));
            String label = "webhook " + URI.create(webhook.url()).getAuthority();
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.log.summary-interval", "1500")
                    .with("bridge.delivery.initial-backoff", "100").with("bridge.delivery.max-backoff", "200")
                    .with("bridge.webhook.urls", webhook.url() + "?code=s3cr3t-token").with("bridge.webhook.secret", "s")
                    .start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("Sink " + label + " still failing for"));
                assertThat(webhook.failedAttempts().size()).isGreaterThan(3);
                webhook.answerWith(200);
                await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("Sink " + label + " recovered"));
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 3);
            }
            String text = log.text();
            assertThat(log.lines()).filteredOn(l -> l.contains("Sink " + label + " is failing")).hasSize(1);
            assertThat(log.lines()).filteredOn(l -> l.contains("still failing"))
                    .allMatch(l -> l.matches("WARN Sink " + java.util.regex.Pattern.quote(label)
                            + " still failing for \\d+ s: \\d+ message\\(s\\) waiting, oldest for \\d+ s, \\d+ failed attempt\\(s\\), last error: .+"));
            assertThat(text.indexOf("still failing")).isLessThan(text.indexOf(" recovered: delivering again"));
            assertThat(text).doesNotContain("s3cr3t-token").doesNotContain("Failed delivery").doesNotContain("DeadLetterChannel");
        }
    }

    @Test
    void anImdsOutageIsSummarisedAndItsRecoveryLogged() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(1));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.log.summary-interval", "1000").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() > 0);
                imds.failWith(500, null);
                await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("IMDS still failing: "));
                imds.recover();
                await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("IMDS recovered: answered again after "));
            }
            String text = log.text();
            assertThat(log.lines()).filteredOn(l -> l.startsWith("WARN IMDS poll failed")).hasSize(1);
            assertThat(log.lines()).filteredOn(l -> l.contains("IMDS still failing: "))
                    .allMatch(l -> l.matches("WARN IMDS still failing: \\d+ failed poll\\(s\\) in a row, last complete document "
                            + "\\d+ s ago, last error: server-error"));
            assertThat(text.lastIndexOf("IMDS still failing")).isLessThan(text.indexOf("IMDS recovered"));
        }
    }

    @Test
    void aStopWithABacklogWritesOneLinePerSinkNotOnePerMessage() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerWith(503);
            imds.serve(events(200));
            InProcessAgent agent = fixture.builder()
                    .with("bridge.delivery.initial-backoff", "100").with("bridge.delivery.max-backoff", "200")
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start();
            io.github.scheduledeventsbridge.delivery.Spool spool = agent.bean("spool", io.github.scheduledeventsbridge.delivery.Spool.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> spool.totalDepth() == 200 && webhook.failedAttempts().size() > 2);
            java.util.List<String> duringStop;
            try (LogCapture log = LogCapture.install()) {
                agent.close();
                duringStop = log.lines();
            }
            java.util.List<String> warnings = duringStop.stream().filter(l -> l.startsWith("WARN") || l.startsWith("ERROR")).toList();
            assertThat(warnings).as(String.join("\n", duringStop)).hasSizeLessThanOrEqualTo(2)
                    .anyMatch(l -> l.startsWith("WARN Stopping with 200 undelivered message(s) for sink webhook "));
            // Camel's own stop lines (one per route) remain; none is per message.
            assertThat(duringStop).as(String.join("\n", duringStop)).hasSizeLessThan(40)
                    .noneMatch(l -> l.contains("Failed delivery"));
            // One backlog line for the sink; an attempt that happens to be in flight at the stop adds its own one line.
            assertThat(duringStop).filteredOn(l -> (l.contains("undelivered") || l.contains("spool"))
                    && !l.contains("attempt(s) in flight")).hasSize(1);
            assertThat(duringStop).filteredOn(l -> l.contains("attempt(s) in flight")).hasSizeLessThanOrEqualTo(1);
            assertThat(String.join("\n", duringStop).indexOf("Stopping with 200"))
                    .as("after the routes stopped").isGreaterThan(String.join("\n", duringStop).indexOf("Routes stopped"));
        }
    }

    private static JsonNode check(JsonNode report, String id) {
        for (JsonNode check : report.path("checks")) {
            if (check.path("id").asText().equals(id)) {
                return check;
            }
        }
        throw new AssertionError("no check " + id + " in " + report);
    }

    @Test
    void readinessNamesTheFailingSinkAndMetricsArePresentFromTheStartWithHelpAndBuckets() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerWith(503);
            imds.serve(Docs.document(1));
            String label = "webhook " + URI.create(webhook.url()).getAuthority();
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.health.sink-stale-after", "300")
                    .with("bridge.delivery.initial-backoff", "100").with("bridge.delivery.max-backoff", "200")
                    .with("bridge.webhook.urls", webhook.url() + "?sig=tok-123").with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> get(agent, "/metrics").contains("bridge_imds_polls_total{"));
                // Before anything happened: every known series at 0, each with its help text.
                String metrics = get(agent, "/metrics");
                assertThat(metrics)
                        .containsPattern("# HELP bridge_imds_polls_total \\S+")
                        .containsPattern("# HELP bridge_deliveries_total \\S+")
                        .containsPattern("# HELP bridge_transitions_total \\S+")
                        .containsPattern("bridge_deliveries_total\\{[^}]*outcome=\"retry\"[^}]*\\} 0\\.0")
                        .containsPattern("bridge_dead_letters_total\\{[^}]*\\} 0\\.0")
                        .containsPattern("bridge_transitions_total\\{[^}]*transition=\"Cancelled\"[^}]*\\} 0\\.0")
                        .containsPattern("bridge_imds_polls_total\\{[^}]*outcome=\"timeout\"[^}]*\\} 0\\.0")
                        .contains("bridge_imds_poll_seconds_bucket{")
                        .containsPattern("bridge_imds_last_success_timestamp_seconds(\\{[^}]*\\})? 1\\.[0-9]+E9")
                        .contains("name=\"" + label + "\"")
                        .doesNotContain("tok-123");

                imds.serve(events(3));
                await().atMost(Duration.ofSeconds(20)).until(() -> JSON.readTree(get(agent, "/observe/health/ready?details"))
                        .path("status").asText().equals("DOWN"));
                JsonNode ready = JSON.readTree(get(agent, "/observe/health/ready?details"));
                JsonNode sinksCheck = check(ready, "sinks");
                assertThat(sinksCheck.path("message").asText()).startsWith(label + ": 3 waiting").contains("oldest waiting");
                assertThat(sinksCheck.path("details").path(label + ".waiting").asLong()).isEqualTo(3);
                assertThat(sinksCheck.path("details").has(label + ".oldestSeconds")).isTrue();
                JsonNode imdsCheck = check(ready, "imds");
                assertThat(java.time.Instant.parse(imdsCheck.path("details").path("lastSuccess").asText()))
                        .isAfter(java.time.Instant.now().minusSeconds(60));
                assertThat(get(agent, "/metrics")).containsPattern("bridge_spool_depth\\{[^}]*name=\""
                        + java.util.regex.Pattern.quote(label) + "\"[^}]*\\} 3\\.0");
            }
        }
    }
}
