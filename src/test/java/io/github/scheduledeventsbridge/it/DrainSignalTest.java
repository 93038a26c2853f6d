package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The drain signal (docs/actions-and-drain.md, "Drain signal") through a simulated life cycle, over a real socket. */
class DrainSignalTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path state;

    private static HttpResponse<String> get(int port, String method, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("x")
                        : HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servingThenDrainingWhileTheFreezeRunsThenServingAgain() throws Exception {
        try (InProcessAgent agent = InProcessAgent.builder(state)
                .with("bridge.simulator.enabled", "true")
                .with("bridge.simulator.speed", "150")
                .with("bridge.simulator.scenarios", "freeze")
                .with("bridge.simulator.loop", "false")
                .with("bridge.drain.port", "0")
                .with("bridge.drain.host", "127.0.0.1")
                // NotBefore is 6 s ahead at 150x: the VM drains from 3 s before it, while Started, until Completed.
                .with("bridge.drain.lead-time", "3000")
                .start()) {
            int port = agent.bean("drainSignal", DrainSignal.class).port();
            List<Integer> seen = new ArrayList<>();
            List<JsonNode> draining = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                HttpResponse<String> answer = get(port, "GET", "/");
                if (seen.isEmpty() || seen.get(seen.size() - 1) != answer.statusCode()) {
                    seen.add(answer.statusCode());
                }
                if (answer.statusCode() == 503) {
                    draining.add(MAPPER.readTree(answer.body()));
                }
                return seen.size() >= 3;
            });
            assertThat(seen).containsExactly(200, 503, 200);
            JsonNode body = draining.get(0);
            assertThat(body.path("status").asText()).isEqualTo("draining");
            assertThat(body.path("events").get(0).path("eventType").asText()).isEqualTo("Freeze");
            assertThat(draining).extracting(d -> d.path("events").get(0).path("eventStatus").asText())
                    .contains("Started").startsWith("Scheduled");
            assertThat(MAPPER.readTree(get(port, "GET", "/").body()).path("status").asText()).isEqualTo("serving");

            assertThat(get(port, "POST", "/").statusCode()).isEqualTo(413);
            assertThat(get(port, "DELETE", "/").statusCode()).isEqualTo(405);
            assertThat(get(port, "GET", "/metrics").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void aPortThatCannotBeBoundStopsStartUpNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> InProcessAgent.builder(state)
                    .with("bridge.simulator.enabled", "true")
                    .with("bridge.drain.host", "127.0.0.1")
                    .with("bridge.drain.port", Integer.toString(taken.getLocalPort())).start())
                    .hasStackTraceContaining("bridge.drain.port");
        }
    }
}
