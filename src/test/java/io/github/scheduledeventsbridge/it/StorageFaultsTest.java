package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * State and spool that cannot be written, and a state file that is lost. The tests may run as root, where
 * a read-only mode does not stop writes: the agent keeps its state through a file system that refuses the writes
 * the test names (testing/FaultyFileSystem).
 */
class StorageFaultsTest {

    private static final String APPROVAL_SECRET = "storage-faults-approval-secret-0123456789";

    private static final String A = "AAAAAAAA-6666-0000-0000-00000000000A";
    private static final String B = "BBBBBBBB-6666-0000-0000-00000000000B";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s").faultyDisk();

    private static String scheduled(String id) {
        return Docs.scheduled(id, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm");
    }

    /** The storage readiness check's message when it is DOWN, empty when UP. */
    private static Optional<String> storageProblem(InProcessAgent agent) {
        return HealthCheckHelper.invokeReadiness(agent.context()).stream()
                .filter(r -> r.getCheck().getId().equals("storage"))
                .filter(r -> r.getState() == HealthCheck.State.DOWN)
                .map(r -> r.getMessage().orElse("?")).findFirst();
    }

    /**
     * Writes of files whose name starts with {@code name} fail until {@link #writable}, as on a full disk; from the
     * next document on: a delivery may beat the write that clears the outbox, which is waited for first.
     */
    private void unwritable(InProcessAgent agent, String name) {
        await().atMost(Duration.ofSeconds(20)).until(() -> agent.bean("journal",
                io.github.scheduledeventsbridge.state.TransitionJournal.class).outbox().isEmpty());
        fixture.disk().refuseWrites(file -> file.getFileName().toString().startsWith(name), "No space left on device");
    }

    private void writable() {
        fixture.disk().allowWrites();
    }

    @Test
    void anUnwritableStateMakesTheAgentNotReadyWithTheReasonUntilWritingWorks() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            assertThat(storageProblem(agent)).isEmpty();

            unwritable(agent, ".state.json");
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            await().atMost(Duration.ofSeconds(20)).until(() -> storageProblem(agent).isPresent());
            assertThat(storageProblem(agent).orElseThrow()).contains("state write failed", "state.json");
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
            assertThat(storageProblem(agent)).as("still failing, still not ready").isPresent();
            assertThat(fixture.webhook().transitionsOf(B)).isEmpty();

            writable();
            await().atMost(Duration.ofSeconds(20)).until(() -> storageProblem(agent).isEmpty());
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);
        }
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::eventId).containsExactly(A, B);
    }

    @Test
    void anUnwritableSpoolMakesTheAgentNotReadyUntilTheTransitionIsSpooled() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            unwritable(agent, ".0000000000000000002.json");
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            await().atMost(Duration.ofSeconds(20)).until(() -> storageProblem(agent).isPresent());
            assertThat(storageProblem(agent).orElseThrow()).contains("spool write failed");

            writable();
            await().atMost(Duration.ofSeconds(20)).until(() -> storageProblem(agent).isEmpty());
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);
        }
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::eventId).containsExactly(A, B);
    }

    /**
     * A spool that stays unwritable for many polls: one ERROR that says what is on disk (the transitions are in
     * state.json's outbox; the state is not "unchanged"), summaries while it lasts, one line when it is over, and
     * no IMDS failure or recovery, since IMDS answered every poll.
     */
    @Test
    void aSpoolThatStaysUnwritableIsOneErrorThenSummariesThenOneLineWhenItWorks() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (LogCapture log = LogCapture.install();
             InProcessAgent agent = fixture.builder().with("bridge.log.summary-interval", "1000").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            unwritable(agent, ".0000000000000000002.json");
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            await().atMost(Duration.ofSeconds(20)).until(() -> storageProblem(agent).isPresent());
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 8
                    && log.text().contains("The spool still cannot be written"));
            writable();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);

            assertThat(log.lines()).filteredOn(l -> l.startsWith("ERROR")).singleElement().asString()
                    .contains("The spool cannot be written", "recorded in state.json (its outbox)");
            assertThat(log.text()).doesNotContain("the state is unchanged", "IMDS recovered", "IMDS poll failed")
                    .contains("The spool can be written again");
        }
    }

    @Test
    void anApprovalImdsAcceptedIsAnswered200AndItsApprovedSentOnceTheStateCanBeWritten() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        int port = FreePorts.unused();
        try (InProcessAgent agent = fixture.builder().with("bridge.approval.secret", APPROVAL_SECRET)
                .with("bridge.approval.port", Integer.toString(port)).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            unwritable(agent, ".state.json");

            HttpResponse<String> answer = new ApprovalClient(port, APPROVAL_SECRET).approve("{\"EventId\":\"" + A + "\"}");

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains(A, "\"recorded\":false");
            assertThat(fixture.imds().startRequests()).hasSize(1);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 2);
            assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");

            writable();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(A).size() == 2);
            int later = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= later + 3);
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled", "Approved");
        assertThat(fixture.imds().startRequests()).as("approved at IMDS once").hasSize(1);
    }

    @Test
    void aSinksSpoolDirectoryDeletedWhileRunningIsMadeAgainForTheNextMessage() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            Path sinkDir = sinkDirectory();
            // Delivered, so empty: an operator's clean-up (or a restored backup) took it away.
            await().atMost(Duration.ofSeconds(20)).until(() -> isEmpty(sinkDir));
            Files.delete(sinkDir);
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);
            assertThat(storageProblem(agent)).isEmpty();
        }
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::eventId).containsExactly(A, B);
    }

    /** The one sink's spool directory. */
    private Path sinkDirectory() throws IOException {
        try (Stream<Path> dirs = Files.list(fixture.state().resolve("spool"))) {
            return dirs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.noneMatch(f -> f.getFileName().toString().endsWith(".json"));
        }
    }

    @Test
    void aDeletedStateFileNeverLetsANewMessageOverwriteAnUndeliveredOne() throws Exception {
        fixture.webhook().answerWith(503);
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent first = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> !fixture.webhook().failedAttempts().isEmpty());
        }
        Files.delete(fixture.state().resolve("state.json"));
        // A is gone and B appeared; the agent has forgotten everything but the spool.
        fixture.imds().serve(Docs.document(3, scheduled(B)));
        fixture.webhook().answerWith(200);
        try (InProcessAgent second = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() >= 2);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
        }
        // Two events: each on its lane (bridge.webhook.concurrency), so either may arrive first.
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::eventId).containsExactlyInAnyOrder(A, B);
    }
}
