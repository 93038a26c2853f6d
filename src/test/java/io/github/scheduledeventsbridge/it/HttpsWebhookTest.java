package io.github.scheduledeventsbridge.it;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.SelfSignedKeystore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An https webhook (what every real Azure Functions or Logic Apps URL is) through the one shared endpoint
 * {@code http://webhook-target}: the URL's scheme, not the endpoint's, decides TLS.
 */
class HttpsWebhookTest {

    @TempDir
    Path work;
    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    private record Received(String method, String rawQuery, boolean signed) {
    }

    @Test
    void anHttpsTargetGetsTheSignedPostOverTls() throws Exception {
        SelfSignedKeystore keystore = SelfSignedKeystore.create(work.resolve("receiver.p12"), "receiver");
        HttpsServer receiver = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.setHttpsConfigurator(new HttpsConfigurator(keystore.serving()));
        List<Received> received = new CopyOnWriteArrayList<>();
        receiver.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                String timestamp = exchange.getRequestHeaders().getFirst("X-Bridge-Timestamp");
                received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getRawQuery(),
                        ApprovalClient.sign("s", timestamp, body).equals(exchange.getRequestHeaders().getFirst("X-Bridge-Signature"))));
                exchange.sendResponseHeaders(202, -1);
            }
        });
        receiver.start();

        // The agent's HTTP client trusts the JVM's default trust store; this test's certificate is added that way.
        String[] trustProperties = {"javax.net.ssl.trustStore", "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType"};
        String[] saved = new String[trustProperties.length];
        for (int i = 0; i < trustProperties.length; i++) {
            saved[i] = System.getProperty(trustProperties[i]);
        }
        System.setProperty("javax.net.ssl.trustStore", keystore.file().toString());
        System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        try {
            fixture.imds().serve(Docs.document(2, Docs.scheduled("AAAAAAAA-0000-0000-0000-00000000000A", "Reboot",
                    "Mon, 11 Apr 2022 22:26:58 GMT", "vm-a")));
            String url = "https://localhost:" + receiver.getAddress().getPort() + "/api/fn?code=abc%2Bdef%3D%3D";
            try (InProcessAgent agent = fixture.start("bridge.webhook.urls", url, "bridge.webhook.secret", "s")) {
                await().atMost(Duration.ofSeconds(20)).until(() -> !received.isEmpty());
            }
        } finally {
            receiver.stop(0);
            for (int i = 0; i < trustProperties.length; i++) {
                if (saved[i] == null) {
                    System.clearProperty(trustProperties[i]);
                } else {
                    System.setProperty(trustProperties[i], saved[i]);
                }
            }
        }
        assertThat(received).hasSize(1);
        assertThat(received.get(0)).isEqualTo(new Received("POST", "code=abc%2Bdef%3D%3D", true));
    }
}
