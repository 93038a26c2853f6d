package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The drain signal of the packaged agent from the first answer after a restart, SIGTERM or kill -9: another VM's
 * Started event never takes this VM out, and an event approved before the restart keeps it out. Instance metadata
 * does not answer after the restart, so only what the state dir kept can decide.
 */
class DrainRestartIT {

    private static final String OWN = "AAAAAAAA-7777-7777-7777-77777777777A";
    private static final String OTHERS = "BBBBBBBB-7777-7777-7777-77777777777B";
    private static final Pattern LISTENING = Pattern.compile("Drain signal listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path work;

    private AgentProcess agent(ScriptedImds imds, String... more) throws Exception {
        Map<String, String> env = AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(),
                "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200",
                "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_DRAIN_PORT", "0",
                "BRIDGE_DRAIN_HOST", "127.0.0.1");
        env.putAll(AgentProcess.env(more));
        return AgentProcess.start("drain-restart", env, Map.of(), work);
    }

    private static int drainPort(AgentProcess agent) throws Exception {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
                .until(() -> LISTENING.matcher(agent.output()).find());
        Matcher matcher = LISTENING.matcher(agent.output());
        assertThat(matcher.find()).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    /** One probe as a load balancer sends it: the status and the events named, or -1 when nothing answered. */
    private record Probe(int status, List<String> events) {
    }

    private static Probe probe(int port) {
        try {
            HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = MAPPER.readTree(answer.body());
            List<String> events = new ArrayList<>();
            body.path("events").forEach(e -> events.add(e.path("eventId").asText()));
            return new Probe(answer.statusCode(), events);
        } catch (Exception e) {
            return new Probe(-1, List.of());
        }
    }

    @ParameterizedTest(name = "restarted after {0}")
    @ValueSource(strings = {"SIGTERM", "kill -9"})
    void fromTheFirstAnswerAfterARestartOnlyThisVmsEventsDrainIt(String stop) throws Exception {
        String notBefore = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusDays(30));
        String userReboot = Docs.scheduled(OWN, "Reboot", notBefore, "vm-under-test")
                .replace("\"EventSource\":\"Platform\"", "\"EventSource\":\"User\"");
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(2, Docs.started(OTHERS, "Freeze", "vm-other"), userReboot));
            AgentProcess first = agent(imds, "BRIDGE_APPROVAL_AUTO_USER_INITIATED", "true");
            int port = drainPort(first);
            await().atMost(Duration.ofSeconds(60)).until(() -> probe(port).events().equals(List.of(OWN)));
            assertThat(imds.startRequests()).hasSize(1);
            if (stop.equals("kill -9")) {
                first.kill9();
            } else {
                first.close();
            }

            imds.answerInstanceMetadataWith(503);
            int polls = imds.polls();
            try (AgentProcess second = agent(imds)) {
                int restarted = drainPort(second);
                List<Probe> probes = new ArrayList<>();
                long start = System.nanoTime();
                // Probes from the moment the port is bound (before Camel has even started) until the restarted agent
                // has polled IMDS three times, and for three seconds at least.
                while (System.nanoTime() - start < Duration.ofSeconds(3).toNanos()
                        || imds.polls() < polls + 3 && System.nanoTime() - start < Duration.ofSeconds(90).toNanos()) {
                    probes.add(probe(restarted));
                }
                assertThat(imds.polls()).as("the restarted agent polled meanwhile").isGreaterThanOrEqualTo(polls + 3);
                List<Probe> answered = probes.stream().filter(p -> p.status() > 0).toList();
                assertThat(answered).as("every answer from the first").allSatisfy(p -> {
                    assertThat(p.status()).isEqualTo(503);
                    assertThat(p.events()).containsExactly(OWN);
                });
            }
        }
    }
}
