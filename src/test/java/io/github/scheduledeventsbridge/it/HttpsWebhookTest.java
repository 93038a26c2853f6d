package io.github.scheduledeventsbridge.it;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An https webhook (what every real Azure Functions or Logic Apps URL is) through the one shared endpoint
 * {@code http://webhook-target}: the URL's scheme, not the endpoint's, decides TLS.
 */
class HttpsWebhookTest {

    @TempDir
    Path work;

    private record Received(String method, String rawQuery, boolean signed) {
    }

    @Test
    void anHttpsTargetGetsTheSignedPostOverTls() throws Exception {
        Path keystore = work.resolve("receiver.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "receiver", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();

        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keyManagers.getKeyManagers(), null, null);
        HttpsServer receiver = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.setHttpsConfigurator(new HttpsConfigurator(tls));
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
        System.setProperty("javax.net.ssl.trustStore", keystore.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(2, Docs.scheduled("AAAAAAAA-0000-0000-0000-00000000000A", "Reboot",
                    "Mon, 11 Apr 2022 22:26:58 GMT", "vm-a")));
            String url = "https://localhost:" + receiver.getAddress().getPort() + "/api/fn?code=abc%2Bdef%3D%3D";
            try (InProcessAgent agent = InProcessAgent.builder(work.resolve("state")).imds(imds)
                    .with("bridge.webhook.urls", url).with("bridge.webhook.secret", "s").start()) {
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
