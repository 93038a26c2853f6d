package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The approval API over TLS, with a keystore made by the JDK's keytool for this test. */
class ApprovalTlsTest {

    private static final String SECRET = "tls-secret-for-tests-0123456789abcdef";
    private static final String EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @TempDir
    Path work;

    @Test
    void approvalsWorkOverTlsAndPlainHttpIsRefused() throws Exception {
        Path keystore = work.resolve("approval.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "approval", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();

        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(2, Docs.scheduled(EVENT, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")));
            int port = FreePorts.unused();
            try (InProcessAgent agent = InProcessAgent.builder(work.resolve("state")).imds(imds)
                    .with("bridge.approval.secret", SECRET).with("bridge.approval.port", Integer.toString(port))
                    .with("bridge.approval.tls.keystore", keystore.toString())
                    .with("bridge.approval.tls.keystore-password", "changeit").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= 1);

                KeyStore trusted = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(keystore)) {
                    trusted.load(in, "changeit".toCharArray());
                }
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trusted);
                SSLContext ssl = SSLContext.getInstance("TLS");
                ssl.init(null, trust.getTrustManagers(), null);
                HttpClient https = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();

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
}
