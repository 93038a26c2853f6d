package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Every answer of the approval API (docs/approvals.md, "The API") over real HTTP, with a recording IMDS that shows what reached it. */
class ApprovalApiTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String STARTED = "5DD55B64-45AD-49D3-BBC9-F57D4EA97BD7";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("w").approvalPort(SECRET);
    private ScriptedImds imds;
    private WebhookReceiver webhook;
    private ApprovalClient client;

    @BeforeEach
    void start() throws Exception {
        imds = fixture.imds();
        webhook = fixture.webhook();
        imds.serve(Docs.document(7,
                Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0", "WestNO_1"),
                Docs.started(STARTED, "Reboot", "WestNO_0")));
        fixture.start();
        client = fixture.approvals();
        await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
    }

    /**
     * A client's retry after a lost answer: an event this agent approved is not sent to IMDS again; alone it is the 409
     * "already approved by this agent", beside another Scheduled event only the other is forwarded.
     */
    @Test
    void anEventApprovedHereIsNotSentAgainAndTheAnswerSaysSo() throws Exception {
        String second = "0B9C1D2E-3F40-4513-B24B-AA5F13A16125";
        imds.serve(Docs.document(8,
                Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0", "WestNO_1"),
                Docs.scheduled(second, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0"),
                Docs.started(STARTED, "Reboot", "WestNO_0")));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.events(true).body().contains(second));
        assertThat(client.approve("{\"EventId\":\"" + SCHEDULED + "\"}").statusCode()).isEqualTo(200);

        HttpResponse<String> again = client.approve("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).isEqualTo("{\"error\":\"already approved by this agent: " + SCHEDULED + "\"}");
        assertThat(imds.startRequests()).hasSize(1);

        HttpResponse<String> both = client.approve("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED
                + "\"},{\"EventId\":\"" + second + "\"}]}");
        assertThat(both.statusCode()).isEqualTo(200);
        assertThat(both.body()).contains("\"approved\":[\"" + second + "\"]").contains("\"alreadyApproved\":[\"" + SCHEDULED + "\"]");
        assertThat(imds.startRequests()).hasSize(2);
        assertThat(imds.startRequests().get(1).body()).isEqualTo("{\"StartRequests\":[{\"EventId\":\"" + second + "\"}]}");

        HttpResponse<String> notOurs = client.approve("{\"EventId\":\"" + STARTED + "\"}");
        assertThat(notOurs.statusCode()).as("started, not by this agent").isEqualTo(409);
        assertThat(notOurs.body()).contains("not Scheduled").doesNotContain("already approved");
    }

    @Test
    void aValidApprovalReachesImdsOnceAndEmitsApproved() {
        HttpResponse<String> answer = client.approve("{\"EventId\":\"" + SCHEDULED.toLowerCase() + "\"}");
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains(SCHEDULED);
        assertThat(imds.startRequests()).hasSize(1);
        ScriptedImds.StartRequest forwarded = imds.startRequests().get(0);
        assertThat(forwarded.metadataHeader()).isEqualTo("true");
        assertThat(forwarded.query()).contains("api-version=2020-07-01");
        assertThat(forwarded.body()).isEqualTo("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}");
        await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(SCHEDULED).contains("Approved"));
        WebhookReceiver.Request approved = webhook.delivered().stream()
                .filter(r -> r.transition().equals("Approved")).findFirst().orElseThrow();
        assertThat(approved.json().path("data").path("eventStatus").asText()).isEqualTo("Scheduled");
        assertThat(counted("approved")).as("bridge_approvals_total{outcome=approved}, once").isEqualTo(1.0);
    }

    private double counted(String outcome) {
        var counter = fixture.agent().context().getRegistry().findSingleByType(io.micrometer.core.instrument.MeterRegistry.class)
                .find("bridge.approvals").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void theImdsShapeIsAcceptedToo() {
        assertThat(client.approve("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}").statusCode()).isEqualTo(200);
        assertThat(imds.startRequests()).hasSize(1);
    }

    @Test
    void itsReplayIsRefused() {
        String body = "{\"EventId\":\"" + SCHEDULED + "\"}";
        String timestamp = ApprovalClient.now();
        String signature = ApprovalClient.sign(SECRET, timestamp, body.getBytes(StandardCharsets.UTF_8));
        assertThat(client.post(body.getBytes(StandardCharsets.UTF_8), timestamp, signature).statusCode()).isEqualTo(200);
        assertThat(client.post(body.getBytes(StandardCharsets.UTF_8), timestamp, signature).statusCode()).isEqualTo(409);
        assertThat(imds.startRequests()).hasSize(1);
    }

    @Test
    void refusalsNeverReachImds() {
        byte[] body = ("{\"EventId\":\"" + SCHEDULED + "\"}").getBytes(StandardCharsets.UTF_8);
        String now = ApprovalClient.now();
        String stale = Long.toString(Long.parseLong(now) - 310); // clear of the 300 s edge, even if a second ticks over
        String future = Long.toString(Long.parseLong(now) + 310);

        assertThat(client.post(body, null, null).statusCode()).as("unsigned").isEqualTo(401);
        assertThat(client.post(body, now, ApprovalClient.sign("wrong-key", now, body)).statusCode()).as("wrong key").isEqualTo(401);
        assertThat(client.post(body, stale, ApprovalClient.sign(SECRET, stale, body)).statusCode()).as("stale").isEqualTo(401);
        assertThat(client.post(body, future, ApprovalClient.sign(SECRET, future, body)).statusCode()).as("future").isEqualTo(401);
        assertThat(client.post(body, now, ApprovalClient.sign(SECRET, now, body).toUpperCase()).statusCode()).isEqualTo(401);
        assertThat(client.approve("{\"EventId\":\"00000000-0000-0000-0000-000000000000\"}").statusCode()).as("unknown").isEqualTo(404);
        assertThat(client.approve("{\"EventId\":\"" + STARTED + "\"}").statusCode()).as("already started").isEqualTo(409);
        assertThat(client.approve("{\"EventId\": ").statusCode()).as("malformed JSON").isEqualTo(400);
        assertThat(client.approve("{\"Id\":\"" + SCHEDULED + "\"}").statusCode()).as("wrong shape").isEqualTo(400);
        assertThat(client.approve("{\"StartRequests\":[]}").statusCode()).as("empty list").isEqualTo(400);
        assertThat(client.approve("[\"" + SCHEDULED + "\"]").statusCode()).as("array").isEqualTo(400);
        assertThat(client.approve("{\"EventId\":\"" + SCHEDULED + "\",\"x\":1}").statusCode()).as("extra field").isEqualTo(400);

        byte[] huge = new byte[2 * 1024 * 1024];
        Arrays.fill(huge, (byte) ' ');
        assertThat(client.post(huge, now, ApprovalClient.sign(SECRET, now, huge)).statusCode()).as("2 MB").isEqualTo(413);
        byte[] justOver = new byte[64 * 1024 + 1];
        Arrays.fill(justOver, (byte) ' ');
        assertThat(client.post(justOver, now, ApprovalClient.sign(SECRET, now, justOver)).statusCode()).isEqualTo(413);

        assertThat(imds.startRequests()).as("nothing but a 200 reaches IMDS").isEmpty();
        assertThat(webhook.transitionsOf(SCHEDULED)).doesNotContain("Approved");
    }

    @Test
    void anImdsThatRefusesOrCannotBeReachedGives502() {
        try (LogCapture log = LogCapture.install()) {
            // Three different bodies: the same body in the same second would be a replay (409).
            imds.answerStartRequestsWith(400);
            assertThat(client.approve("{\"EventId\":\"" + SCHEDULED + "\"}").statusCode()).isEqualTo(502);
            imds.answerStartRequestsWith(500);
            assertThat(client.approve("{\"EventId\":\"" + SCHEDULED.toLowerCase() + "\"}").statusCode()).isEqualTo(502);
            imds.close();
            assertThat(client.approve("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}").statusCode()).isEqualTo(502);
            assertThat(webhook.transitionsOf(SCHEDULED)).doesNotContain("Approved");
            assertThat(counted("502")).as("each counted once").isEqualTo(3.0);
            // The audit names the client even after the call to IMDS (which starts from a clean set of headers).
            assertThat(log.lines()).filteredOn(l -> l.contains("refused with 502")).hasSize(3)
                    .allMatch(l -> l.startsWith("WARN Approval request from 127.0.0.1 for ["), "names the client");
        }
    }

    @Test
    void theReadSideShowsCurrentEventsToSignedCallersOnly() {
        HttpResponse<String> events = client.events(true);
        assertThat(events.statusCode()).isEqualTo(200);
        assertThat(events.body()).contains(SCHEDULED).contains(STARTED).contains("\"DocumentIncarnation\":7");
        assertThat(client.events(false).statusCode()).isEqualTo(401);
    }

    @Test
    void withoutASecretNothingListens(@TempDir Path other) throws Exception {
        int port = FreePorts.unused();
        try (InProcessAgent plain = InProcessAgent.builder(other).imds(imds)
                .with("bridge.approval.port", Integer.toString(port)).start()) {
            assertThat(plain.context().getRoute("approval-api")).isNull();
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }

}
