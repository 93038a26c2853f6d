package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.SelfSignedKeystore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The approval API over TLS, with a keystore made by the JDK's keytool for this test. */
class ApprovalTlsTest {

    private static final String SECRET = "tls-secret-for-tests-0123456789abcdef";
    private static final String EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @TempDir
    Path work;
    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().approvalPort(SECRET);

    @Test
    void approvalsWorkOverTlsAndPlainHttpIsRefused() throws Exception {
        SelfSignedKeystore keystore = SelfSignedKeystore.create(work.resolve("approval.p12"), "approval");
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(2, Docs.scheduled(EVENT, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")));
        int port = fixture.approvalPort();
        try (InProcessAgent agent = fixture.builder()
                .with("bridge.approval.tls.keystore", keystore.file().toString())
                .with("bridge.approval.tls.keystore-password", keystore.password()).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= 1);

            HttpClient https = HttpClient.newBuilder().sslContext(keystore.trusting())
                    .connectTimeout(Duration.ofSeconds(5)).build();

            byte[] body = ("{\"EventId\":\"" + EVENT + "\"}").getBytes(StandardCharsets.UTF_8);
            String timestamp = ApprovalClient.now();
            HttpResponse<String> answer = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/api/v1/approvals"))
                    .header("X-Bridge-Timestamp", timestamp)
                    .header("X-Bridge-Signature", ApprovalClient.sign(SECRET, timestamp, body))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(imds.startRequests()).hasSize(1);

            assertThatThrownBy(() -> new ApprovalClient(port, SECRET).approve("{\"EventId\":\"x\"}"))
                    .as("plain HTTP on the TLS port").isInstanceOf(Exception.class);
            assertThat(imds.startRequests()).hasSize(1);
        }
    }
}
