package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.github.scheduledeventsbridge.testing.RawSockets.readAll;
import static io.github.scheduledeventsbridge.testing.RawSockets.readOrReset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The approval port's limits over real sockets: connections, time, body size, protocol, JSON answers, counting. */
class ApprovalPortLimitsTest {

    private static final String SECRET = "limits-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().approvalPort(SECRET)
            .with("bridge.approval.max-connections", "4")
            .with("bridge.approval.request-timeout", "3000");
    private InProcessAgent agent;
    private int port;
    private ApprovalClient client;

    @BeforeEach
    void start() throws Exception {
        fixture.imds().serve(Docs.document(3, Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0")));
        agent = fixture.start();
        port = fixture.approvalPort();
        client = fixture.approvals();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.events(true).body().contains(SCHEDULED));
    }

    @Test
    void aFormContentTypeDoesNotStopTheSignatureFromMatchingTheRawBytes() throws Exception {
        // What `curl -d` sends: application/x-www-form-urlencoded.
        byte[] body = ("{\"EventId\":\"" + SCHEDULED + "\"}").getBytes(StandardCharsets.UTF_8);
        String ts = ApprovalClient.now();
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(approvals())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("X-Bridge-Timestamp", ts).header("X-Bridge-Signature", ApprovalClient.sign(SECRET, ts, body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(fixture.imds().startRequests()).hasSize(1);
    }

    @Test
    void everyRefusalIsJsonAndCounted() throws Exception {
        byte[] big = new byte[70 * 1024];
        HttpResponse<String> tooBig = client.post(big, ApprovalClient.now(), "sha256=00");
        assertJson(tooBig, 413);
        assertJson(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/nope")).GET().build()), 404);
        HttpResponse<String> wrongMethod = client.send(HttpRequest.newBuilder(approvals()).GET().build());
        assertJson(wrongMethod, 405);
        assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
        assertJson(client.post(new byte[10], null, null), 401);

        int management = agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + management + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        for (String outcome : List.of("401", "404", "405", "413")) {
            assertThat(metrics).containsPattern("bridge_approvals_total\\{[^}]*outcome=\"" + outcome + "\"[^}]*} 1\\.0");
        }
    }

    @Test
    void aChunkedBodyIsRefusedWhileItGrowsPast64KiB() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/approvals HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    + "X-Bridge-Timestamp: 1\r\nX-Bridge-Signature: sha256=00\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[8 * 1024];
            for (int i = 0; i < 9; i++) { // 72 KiB, and the body never ends
                out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(chunk);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
            String answer = readAll(socket.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 413").contains("application/json").contains("\"error\"");
        }
    }

    @Test
    void atTheLimitTheOldestIdleConnectionsGoAndASignedRequestIsStillAnswered() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                idle.add(RawSockets.stall(port, ""));
            }
            for (Socket oldest : idle.subList(0, 2)) {
                oldest.setSoTimeout(2_000); // before the 3 s request timeout, which would close it too
                assertThat(readOrReset(oldest.getInputStream())).as("the oldest closed by the agent").isEqualTo(-1);
            }
            Socket newest = idle.get(idle.size() - 1);
            newest.setSoTimeout(200);
            assertThatThrownBy(() -> newest.getInputStream().read()).as("the newest kept")
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(client.events(true).statusCode()).as("a signed request on one more connection").isEqualTo(200);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void aRequestThatTricklesInIsCutOffAtTheRequestTimeout() throws Exception {
        try (Socket slow = new Socket("127.0.0.1", port)) {
            slow.setSoTimeout(8_000);
            slow.getOutputStream().write("POST /api/v1/approvals HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            assertThat(readOrReset(slow.getInputStream())).isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the 3 s request timeout")
                    .isLessThan(Duration.ofMillis(6_000));
        }
        try (Socket idle = new Socket("127.0.0.1", port)) {
            idle.setSoTimeout(8_000);
            assertThat(readOrReset(idle.getInputStream())).as("an idle connection is closed too").isEqualTo(-1);
        }
    }

    @Test
    void onlyHttp11IsSpoken() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET /api/v1/events HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 401").doesNotContain("101 Switching");
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            // Prior-knowledge HTTP/2: answered by Jetty's HTTP/1.1 parser with a text status line, never an HTTP/2 SETTINGS frame.
            assertThat(readAll(socket.getInputStream())).matches("(?s)HTTP/\\S+ (4\\d\\d|501) .*");
        }
    }

    private URI approvals() {
        return URI.create("http://127.0.0.1:" + port + "/api/v1/approvals");
    }

    private static void assertJson(HttpResponse<String> answer, int status) {
        assertThat(answer.statusCode()).isEqualTo(status);
        assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(answer.body()).startsWith("{\"error\":");
    }
}
