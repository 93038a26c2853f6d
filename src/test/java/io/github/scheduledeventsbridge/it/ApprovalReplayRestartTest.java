package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.approval.ReplayCache;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A captured approval stays used across a restart of the agent: the replay cache lives in the state directory. */
class ApprovalReplayRestartTest {

    private static final String SECRET = "replay-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String OTHER = "5A1B2C3D-0000-4513-B24B-AA5F13A16124";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().approvalPort(SECRET);

    @Test
    void aCapturedApprovalIsRefusedAfterARestart() throws Exception {
        byte[] body = ("{\"EventId\":\"" + SCHEDULED + "\"}").getBytes(StandardCharsets.UTF_8);
        String ts = ApprovalClient.now();
        String signature = ApprovalClient.sign(SECRET, ts, body);
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(3, Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0"),
                Docs.scheduled(OTHER, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0")));
        ApprovalClient client = fixture.approvals();
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> client.events(true).body().contains(SCHEDULED));
            assertThat(client.post(body, ts, signature).statusCode()).isEqualTo(200);
        }
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> client.events(true).body().contains(SCHEDULED));
            assertThat(client.post(body, ts, signature).statusCode()).as("the same request again").isEqualTo(409);
            assertThat(imds.startRequests()).hasSize(1);
            assertThat(Files.readString(fixture.state().resolve(ReplayCache.FILE_NAME))).contains(signature).doesNotContain(SECRET);
            assertThat(client.approve("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}").body())
                    .as("signed anew, the same event: approved before").contains("already approved by this agent");
            assertThat(imds.startRequests()).hasSize(1);
            assertThat(client.approve("{\"StartRequests\":[{\"EventId\":\"" + OTHER + "\"}]}").statusCode())
                    .as("a new signature still works").isEqualTo(200);
            assertThat(imds.startRequests()).hasSize(2);
        }
    }
}
