package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.BridgeVersion;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What a fleet operator sees in the first hour (issue 15): versions, logs, readiness details, metrics. */
class OperatorFirstHourTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EVENT = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @TempDir
    Path state;

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
        try (LogCapture log = LogCapture.install(); ScriptedImds imds = new ScriptedImds();
             WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent agent = InProcessAgent.builder(state).imds(imds)
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
}
