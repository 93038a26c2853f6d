package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The drain signal (docs/actions-and-drain.md, "Drain signal") through an event's life cycle and across restarts, over a real socket. */
class DrainSignalTest {

    private static final String OWN = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final String OTHERS = "BBBBBBBB-0000-0000-0000-00000000000B";
    private static final String HOSTS = "CCCCCCCC-0000-0000-0000-00000000000C";

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().drainPort();

    private static HttpResponse<String> get(int port, String method, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("x")
                        : HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servingThenDrainingFromTheLeadTimeAndWhileStartedThenServingAgain() throws Exception {
        ScriptedImds imds = fixture.imds();
        // A Freeze of this VM and its neighbour, a day away: beyond the lead time.
        imds.serve(Docs.document(2, Docs.scheduled(OWN, "Freeze", notBeforeIn(Duration.ofDays(1)),
                "vm-other", "vm-under-test")));
        try (InProcessAgent agent = fixture.builder().with("bridge.drain.lead-time", "300000").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= 2);
            assertThat(answer(agent).path("status").asText()).isEqualTo("serving");
            assertThat(drainingGauge(agent)).as("present from the start").isEqualTo(0.0);

            // Rescheduled to a minute from now: within the lead time.
            imds.serve(Docs.document(3, Docs.scheduled(OWN, "Freeze", notBeforeIn(Duration.ofSeconds(60)),
                    "vm-other", "vm-under-test")));
            await().atMost(Duration.ofSeconds(20)).until(() -> drainingFor(answer(agent)).equals(List.of(OWN)));
            JsonNode scheduled = answer(agent).path("events").get(0);
            assertThat(scheduled.path("eventType").asText()).isEqualTo("Freeze");
            assertThat(scheduled.path("eventStatus").asText()).isEqualTo("Scheduled");
            assertThat(scheduled.path("approved").asBoolean()).isFalse();
            assertThat(drainingGauge(agent)).isEqualTo(1.0);

            imds.serve(Docs.document(4, Docs.started(OWN, "Freeze", "vm-other", "vm-under-test")));
            await().atMost(Duration.ofSeconds(20)).until(() -> answer(agent).path("events").path(0)
                    .path("eventStatus").asText().equals("Started"));
            assertThat(get(agent.drainPort(), "GET", "/").statusCode()).isEqualTo(503);

            imds.serve(Docs.document(5));
            await().atMost(Duration.ofSeconds(20)).until(() -> answer(agent).path("status").asText().equals("serving"));
            assertThat(get(agent.drainPort(), "GET", "/").statusCode()).isEqualTo(200);

            int port = agent.drainPort();
            assertThat(get(port, "POST", "/").statusCode()).isEqualTo(413);
            assertThat(get(port, "DELETE", "/").statusCode()).isEqualTo(405);
            assertThat(get(port, "GET", "/metrics").statusCode()).isEqualTo(404);
        }
    }


    private static JsonNode answer(InProcessAgent agent) throws Exception {
        HttpResponse<String> answer = get(agent.drainPort(), "GET", "/");
        JsonNode body = MAPPER.readTree(answer.body());
        assertThat(answer.statusCode()).as("status code of " + body).isEqualTo(
                body.path("status").asText().equals("draining") ? 503 : 200);
        return body;
    }

    private static Double drainingGauge(InProcessAgent agent) throws Exception {
        return OperatorFirstHourTest.get(agent, "/metrics").lines().filter(l -> l.startsWith("bridge_drain_draining "))
                .map(l -> Double.valueOf(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(null);
    }

    private static List<String> drainingFor(JsonNode answer) {
        List<String> ids = new ArrayList<>();
        answer.path("events").forEach(e -> ids.add(e.path("eventId").asText()));
        return ids;
    }

    /** A NotBefore as IMDS writes it, this far from now. */
    private static String notBeforeIn(Duration fromNow) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plus(fromNow));
    }

    private static String hostName() throws Exception {
        Process hostname = new ProcessBuilder("hostname").start();
        String name = new String(hostname.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(hostname.waitFor()).isZero();
        return name.split("\\.", 2)[0].toUpperCase(Locale.ROOT);
    }

    @Test
    void afterARestartTheLastKnownIdentityDecidesFromTheFirstAnswer() throws Exception {
        ScriptedImds imds = fixture.imds();
        // Another VM of the availability set is being frozen: this VM serves.
        imds.serve(Docs.document(2, Docs.started(OTHERS, "Freeze", "vm-other")));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.bean("vmIdentity", VmIdentity.class).isKnown()
                    && !agent.bean("journal", io.github.scheduledeventsbridge.state.TransitionJournal.class)
                    .lastDocument().events().isEmpty());
            assertThat(answer(agent).path("status").asText()).isEqualTo("serving");
        }
        // Restarted while instance metadata does not answer (it is retried every 30 s, longer than this test).
        imds.answerInstanceMetadataWith(503);
        try (InProcessAgent agent = fixture.start()) {
            assertThat(answer(agent).path("status").asText()).as("the very first answer").isEqualTo("serving");
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);
            assertThat(answer(agent).path("status").asText()).isEqualTo("serving");
            assertThat(imds.instanceMetadataRequests()).as("IMDS is still asked").isGreaterThanOrEqualTo(2);

            // An event naming this VM (by its last known name) drains it, and only that one is listed.
            imds.serve(Docs.document(3, Docs.started(OTHERS, "Freeze", "vm-other"),
                    Docs.started(OWN, "Freeze", "vm-under-test")));
            await().atMost(Duration.ofSeconds(20)).until(() -> drainingFor(answer(agent)).equals(List.of(OWN)));
        }
    }

    @Test
    void withNoIdentityAtAllOnlyEventsNamingThisHostDrainIt() throws Exception {
        ScriptedImds imds = fixture.imds();
        imds.answerInstanceMetadataWith(503);
        imds.serve(Docs.document(2, Docs.started(OTHERS, "Freeze", "vm-other"),
                Docs.scheduled(OTHERS.replace('B', 'D'), "Reboot", notBeforeIn(Duration.ofSeconds(60)), "vm-other")));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= 3);
            assertThat(answer(agent).path("status").asText()).as("events of VMs it cannot tell from itself")
                    .isEqualTo("serving");

            imds.serve(Docs.document(3, Docs.started(OTHERS, "Freeze", "vm-other"),
                    Docs.started(HOSTS, "Freeze", "vm-other", hostName().toLowerCase(Locale.ROOT))));
            await().atMost(Duration.ofSeconds(20)).until(() -> drainingFor(answer(agent)).equals(List.of(HOSTS)));
        }
    }

    @Test
    void anApprovedEventKeepsTheVmDrainingAfterARestart() throws Exception {
        // NotBefore well beyond the lead time: only the approval makes the VM drain.
        String userReboot = Docs.scheduled(OWN, "Reboot", notBeforeIn(Duration.ofDays(30)), "vm-under-test")
                .replace("\"EventSource\":\"Platform\"", "\"EventSource\":\"User\"");
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(2, userReboot));
        try (InProcessAgent agent = fixture.builder().with("bridge.approval.auto.user-initiated", "true").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.startRequests().size() == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> answer(agent).path("events").path(0)
                    .path("approved").asBoolean());
        }
        // Restarted without auto-approval: nothing approves it again, the recorded approval alone drains.
        try (InProcessAgent agent = fixture.start()) {
            JsonNode first = answer(agent);
            assertThat(first.path("status").asText()).as("the very first answer").isEqualTo("draining");
            assertThat(first.path("events").path(0).path("approved").asBoolean()).isTrue();
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);
            assertThat(drainingFor(answer(agent))).containsExactly(OWN);
        }
        assertThat(imds.startRequests()).hasSize(1);
    }

    @Test
    void aPortThatCannotBeBoundStopsStartUpNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> InProcessAgent.builder(fixture.state())
                    .with("bridge.simulator.enabled", "true")
                    .with("bridge.drain.host", "127.0.0.1")
                    .with("bridge.drain.port", Integer.toString(taken.getLocalPort())).start())
                    .hasStackTraceContaining("bridge.drain.port");
        }
    }
}
