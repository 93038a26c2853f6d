package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.identity.ManagedIdentityTokens;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.Azurite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The queue client against Azurite: with the account key over HTTP, with the simulator's tokens over HTTPS. */
class StorageQueueTest {

    @TempDir
    Path work;

    @Test
    void receivesHidesAndDeletesWithTheAccountKey() throws Exception {
        try (Azurite azurite = Azurite.http(work.resolve("azurite"))) {
            URI url = azurite.create("vm-1");
            StorageQueue queue = new StorageQueue(url, azurite.sharedKey(), null, Duration.ofSeconds(10), Clock.systemUTC());
            Instant before = Instant.now().minusSeconds(2);
            queue.put("hello <&>", Duration.ofHours(1));

            List<StorageQueue.Message> first = queue.receive(8, Duration.ofSeconds(1));
            assertThat(first).singleElement().satisfies(m -> {
                assertThat(m.text()).isEqualTo("hello <&>");
                assertThat(m.dequeueCount()).isEqualTo(1);
                assertThat(m.insertionTime()).isBetween(before, Instant.now().plusSeconds(2));
                assertThat(m.expirationTime()).isAfter(m.insertionTime().plus(Duration.ofMinutes(59)));
            });
            assertThat(queue.receive(8, Duration.ofSeconds(30))).as("invisible while its visibility timeout runs").isEmpty();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !queue.receive(8, Duration.ofSeconds(30)).isEmpty());
            // Received again: the first pop receipt is stale, the service says 404, the message stays.
            assertThat(queue.delete(first.get(0))).isFalse();
        }
    }

    @Test
    void aMissingQueueAndAWrongKeyAreClearLines() throws Exception {
        try (Azurite azurite = Azurite.http(work.resolve("azurite"))) {
            StorageQueue missing = new StorageQueue(azurite.queueUrl("nope"), azurite.sharedKey(), null,
                    Duration.ofSeconds(10), Clock.systemUTC());
            assertThatThrownBy(() -> missing.receive(8, Duration.ofSeconds(30))).isInstanceOfSatisfying(QueueFailure.class, e -> {
                assertThat(e.status()).isEqualTo(404);
                assertThat(e.getMessage()).contains("HTTP 404 QueueNotFound", "the queue does not exist");
            });
            URI url = azurite.create("vm-2");
            StorageQueue wrongKey = new StorageQueue(url, new QueueCredential.SharedKey(Azurite.ACCOUNT,
                    Base64.getDecoder().decode("AAAA" + Azurite.KEY.substring(4))), null, Duration.ofSeconds(10), Clock.systemUTC());
            assertThatThrownBy(() -> wrongKey.receive(8, Duration.ofSeconds(30))).isInstanceOfSatisfying(QueueFailure.class, e -> {
                assertThat(e.status()).isEqualTo(403);
                assertThat(e.getMessage()).contains("HTTP 403", "the account key of devstoreaccount1 (connection string) was refused")
                        .doesNotContain(Azurite.KEY);
            });
        }
    }

    @Test
    void theManagedIdentitysTokenFromTheSimulatorIsAcceptedOverHttps() throws Exception {
        try (Azurite azurite = Azurite.https(work.resolve("azurite"));
             ImdsSimulator imds = new ImdsSimulator(ImdsSimulator.Options.defaults()).start()) {
            URI url = azurite.create("vm-3");
            ManagedIdentityTokens tokens = new ManagedIdentityTokens(imds.identityTokenUri(), Duration.ofSeconds(10), Clock.systemUTC());
            StorageQueue queue = new StorageQueue(url, new QueueCredential.ManagedIdentity(tokens, ""), azurite.tls(),
                    Duration.ofSeconds(10), Clock.systemUTC());
            queue.put("over TLS", Duration.ofHours(1));
            List<StorageQueue.Message> received = queue.receive(8, Duration.ofSeconds(30));
            assertThat(received).extracting(StorageQueue.Message::text).containsExactly("over TLS");
            assertThat(queue.delete(received.get(0))).isTrue();
            assertThat(imds.tokensServed()).isEqualTo(1);

            // Without the certificate trusted, nothing is sent.
            StorageQueue untrusting = new StorageQueue(url, new QueueCredential.ManagedIdentity(tokens, ""), null,
                    Duration.ofSeconds(10), Clock.systemUTC());
            assertThatThrownBy(() -> untrusting.receive(8, Duration.ofSeconds(30))).isInstanceOf(QueueFailure.class)
                    .hasMessageContaining("SSLHandshakeException");
        }
    }
}
