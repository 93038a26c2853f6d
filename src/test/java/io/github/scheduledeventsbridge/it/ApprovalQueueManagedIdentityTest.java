package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.ApprovalQueueConfiguration;
import io.github.scheduledeventsbridge.approvalqueue.StorageQueue;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.Azurite;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static io.github.scheduledeventsbridge.testing.QueueApprovals.approve;
import static io.github.scheduledeventsbridge.testing.QueueApprovals.envelope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The managed-identity path end to end on one machine: the token from the simulator's identity endpoint, Azurite
 * over HTTPS with --oauth basic checking it, a certificate made by the test and trusted by this agent's queue
 * client alone (bound for it, never the JVM's trust store).
 */
class ApprovalQueueManagedIdentityTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @TempDir
    Path work;

    @Test
    void anApprovalOnTheQueueIsReceivedWithTheVmsIdentityOverHttps() throws Exception {
        try (Azurite azurite = Azurite.https(work.resolve("azurite"));
             ImdsSimulator identity = new ImdsSimulator(ImdsSimulator.Options.defaults()).start();
             ScriptedImds imds = new ScriptedImds();
             LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(3, Docs.scheduled(SCHEDULED, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm1")));
            URI queue = azurite.create("approve-vm1");
            try (InProcessAgent agent = InProcessAgent.builder(work.resolve("state")).imds(imds)
                    .with("bridge.imds.instance-url", imds.instanceUrl("vm1"))
                    .with("bridge.imds.identity-url", identity.identityTokenUri().toString())
                    .with("bridge.approval.secret", SECRET)
                    .with("bridge.approval.http.enabled", "false")
                    .with("bridge.approval.queue.url", "https://127.0.0.1:" + azurite.port() + "/devstoreaccount1/approve-{vmName}")
                    .with("bridge.approval.queue.poll-interval", "300")
                    .bind(ApprovalQueueConfiguration.TLS_BEAN, azurite.tls())
                    .start()) {
                StorageQueue sender = new StorageQueue(queue, azurite.sharedKey(), azurite.tls(), Duration.ofSeconds(10),
                        Clock.systemUTC());
                sender.put(envelope(SECRET, Instant.now().getEpochSecond(), approve(SCHEDULED)), Duration.ofHours(1));

                await().atMost(Duration.ofSeconds(60)).until(() -> imds.startRequests().size() == 1);
                await().atMost(Duration.ofSeconds(30)).until(() -> sender.peek(32).isEmpty());
                assertThat(identity.tokensServed()).as("one token, kept while valid").isEqualTo(1);
                assertThat(log.text()).contains("from the queue https://127.0.0.1:" + azurite.port(), "system-assigned identity");
            }
        }
    }
}
