package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.approvalqueue.StorageQueue;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.Azurite;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.QueueApprovals.approve;
import static io.github.scheduledeventsbridge.testing.QueueApprovals.base64;
import static io.github.scheduledeventsbridge.testing.QueueApprovals.envelope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Approvals pulled from a real queue (Azurite, with the account key of a connection string) by an agent that opens
 * no approval port, in front of a recording IMDS: only a valid message reaches it, once.
 */
class ApprovalQueueTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String OTHER = "0E1B2C3D-0000-4513-B24B-AA5F13A16999";

    @TempDir
    Path work;
    private Azurite azurite;
    private ScriptedImds imds;
    private InProcessAgent agent;
    private StorageQueue sender;
    private int approvalPort;

    @BeforeEach
    void start() throws Exception {
        azurite = Azurite.http(work.resolve("azurite"));
        imds = new ScriptedImds();
        imds.serve(Docs.document(7,
                Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm_A"),
                Docs.scheduled(OTHER, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm_A")));
        URI queue = azurite.create("approve-" + "vm-a");
        sender = new StorageQueue(queue, azurite.sharedKey(), null, Duration.ofSeconds(10), Clock.systemUTC());
        approvalPort = FreePorts.unused();
    }

    private InProcessAgent agent(String... settings) throws Exception {
        InProcessAgent.Builder builder = InProcessAgent.builder(work.resolve("state")).imds(imds)
                .with("bridge.imds.instance-url", imds.instanceUrl("vm_A"))
                .with("bridge.approval.secret", SECRET)
                .with("bridge.approval.port", Integer.toString(approvalPort))
                .with("bridge.approval.http.enabled", "false")
                .with("bridge.approval.queue.url", "http://127.0.0.1:" + azurite.port() + "/devstoreaccount1/approve-{vmName}")
                .with("bridge.approval.queue.credential", "connection-string")
                .with("bridge.approval.queue.connection-string", azurite.connectionString())
                .with("bridge.approval.queue.poll-interval", "300");
        for (int i = 0; i < settings.length; i += 2) {
            builder.with(settings[i], settings[i + 1]);
        }
        agent = builder.start();
        return agent;
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (imds != null) {
            imds.close();
        }
        if (azurite != null) {
            azurite.close();
        }
    }

    @Test
    void aSignedMessageApprovesTheEventWhileNoApprovalPortIsOpen() throws Exception {
        try (LogCapture log = LogCapture.install()) {
            agent();
            sender.put(base64(envelope(SECRET, Instant.now().getEpochSecond(), approve(SCHEDULED))), Duration.ofHours(1));

            await().atMost(Duration.ofSeconds(60)).until(() -> imds.startRequests().size() == 1);
            assertThat(imds.startRequests().get(0).body()).isEqualTo(approve(SCHEDULED));
            await().atMost(Duration.ofSeconds(30)).until(() -> queueIsEmpty());
            assertThat(log.text()).contains("Approvals: remote approvals from the queue", "approve-{vmName}",
                    "queue http://127.0.0.1:" + azurite.port() + "/devstoreaccount1/approve-vm-a message",
                    "approved, IMDS accepted");
        }
        assertThat(agent.bean("journal", TransitionJournal.class).approvedEvents()).hasSize(1);
        assertThatThrownBy(() -> new Socket("127.0.0.1", approvalPort).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void junkUnsignedForgedExpiredAndReplayedMessagesNeverReachImdsAndAreDeleted() throws Exception {
        agent();
        long now = Instant.now().getEpochSecond();
        String valid = envelope(SECRET, now, approve(SCHEDULED));
        sender.put("not an approval at all", Duration.ofHours(1));
        sender.put("{\"body\":\"" + approve(SCHEDULED).replace("\"", "\\\"") + "\"}", Duration.ofHours(1)); // unsigned
        sender.put(envelope("another-secret-of-enough-length-0123456789", now, approve(SCHEDULED)), Duration.ofHours(1));
        sender.put(envelope(SECRET, now - 400, approve(SCHEDULED)), Duration.ofHours(1)); // signed 400 s before insertion
        sender.put(valid, Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> imds.startRequests().size() == 1 && queueIsEmpty());
        sender.put(base64(valid), Duration.ofHours(1)); // the same signed body under a new message id

        await().atMost(Duration.ofSeconds(60)).until(() -> counted("replay") == 1 && queueIsEmpty());
        assertThat(imds.startRequests()).hasSize(1);
        assertThat(counted("junk")).isEqualTo(1);
        assertThat(counted("unsigned")).isEqualTo(1);
        assertThat(counted("bad-signature")).isEqualTo(1);
        assertThat(counted("expired")).isEqualTo(1);
    }

    @Test
    void aMessageThatCameBackAfterImdsWasDownApprovesOnce() throws Exception {
        imds.answerStartRequestsWith(500);
        agent();
        sender.put(envelope(SECRET, Instant.now().getEpochSecond(), approve(SCHEDULED)), Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> imds.startRequests().size() >= 1);
        imds.answerStartRequestsWith(200);

        await().atMost(Duration.ofSeconds(60)).until(() -> agent.bean("journal", TransitionJournal.class).approvedEvents().size() == 1);
        await().atMost(Duration.ofSeconds(30)).until(this::queueIsEmpty);
        int sent = imds.startRequests().size();
        assertThat(sent).isGreaterThanOrEqualTo(2);
        assertThat(counted("failed")).isGreaterThanOrEqualTo(1);
        // Decided for good: nothing more reaches IMDS, however long the agent runs on.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> imds.startRequests().size() == sent);
    }

    @Test
    void aMessageNeverDecidedGoesToTheDeadLettersAfterMaxDequeue() throws Exception {
        imds.answerStartRequestsWith(500);
        agent("bridge.approval.queue.max-dequeue", "2");
        sender.put(envelope(SECRET, Instant.now().getEpochSecond(), approve(OTHER)), Duration.ofHours(1));

        Path deadLetters = work.resolve("state/approval-queue/dead-letter");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.isDirectory(deadLetters) && list(deadLetters).size() == 1);
        await().atMost(Duration.ofSeconds(30)).until(this::queueIsEmpty);
        String letter = Files.readString(list(deadLetters).get(0));
        assertThat(letter).contains("delivered 2 times without a final outcome", OTHER);
        assertThat(imds.startRequests()).hasSize(2);
    }

    @Test
    void aMissingQueueIsSaidOnceAndBackedOffWhileTheAgentPollsOn() throws Exception {
        try (LogCapture log = LogCapture.install()) {
            agent("bridge.approval.queue.url", "http://127.0.0.1:" + azurite.port() + "/devstoreaccount1/nosuchqueue");
            await().atMost(Duration.ofSeconds(30)).until(() -> log.text().contains("HTTP 404 QueueNotFound"));
            int polls = imds.polls();
            await().atMost(Duration.ofSeconds(30)).until(() -> imds.polls() > polls + 5);
            assertThat(log.lines().stream().filter(l -> l.contains("QueueNotFound")).count()).isEqualTo(1);
            assertThat(log.text()).contains("the queue does not exist", "trying again in");
        }
    }

    private boolean queueIsEmpty() throws IOException {
        return sender.peek(32).isEmpty();
    }

    private double counted(String outcome) {
        var counter = agent.context().getRegistry().findSingleByType(MeterRegistry.class)
                .find("bridge.approval.queue.messages").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".json")).toList();
        }
    }
}
