package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Local faults: a full disk under the state and under the spool (a file system that answers one write with
 * "No space left on device", testing/FaultyFileSystem), a corrupt state file, and a slow sink.
 */
class FaultSuiteTest {

    private static final String A = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final String B = "BBBBBBBB-0000-0000-0000-00000000000B";

    @TempDir
    Path state;
    private ScriptedImds imds;
    private WebhookReceiver webhook;

    @BeforeEach
    void peers() throws Exception {
        imds = new ScriptedImds();
        webhook = WebhookReceiver.start("s");
    }

    @AfterEach
    void stop() {
        imds.close();
        webhook.close();
    }

    private final FaultyFileSystem disk = FaultyFileSystem.over(java.nio.file.FileSystems.getDefault());

    private InProcessAgent agent(String... more) throws Exception {
        InProcessAgent.Builder builder = InProcessAgent.builder(state, disk).imds(imds)
                .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s");
        for (int i = 0; i < more.length; i += 2) {
            builder.with(more[i], more[i + 1]);
        }
        return builder.start();
    }

    private static String scheduled(String id) {
        return Docs.scheduled(id, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm");
    }

    @Test
    void aFullDiskUnderTheStateIsAClearErrorAndCorruptsNothing() throws Exception {
        imds.serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            // Delivery may beat the write that clears the outbox: the full disk is meant for the next document.
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.bean("journal",
                    io.github.scheduledeventsbridge.state.TransitionJournal.class).outbox().isEmpty());
            byte[] before = Files.readAllBytes(state.resolve("state.json"));
            // The next write of state.json (through its temporary file) finds the disk full.
            disk.refuseNextWrite(file -> file.getFileName().toString().startsWith(".state.json"), "No space left on device");
            imds.serve(Docs.document(3, scheduled(A), scheduled(B)));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "state-write".equals(backoff.lastFailureKind()));
            assertThat(Files.readAllBytes(state.resolve("state.json"))).as("state untouched").isEqualTo(before);
            // Space is back for the next write, and B is reported once.
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(B).size() == 1);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);
        }
        assertThat(webhook.transitionsOf(A)).containsExactly("Scheduled");
        assertThat(webhook.transitionsOf(B)).containsExactly("Scheduled");
    }

    @Test
    void aFullDiskUnderTheSpoolKeepsTheTransitionUntilItCanBeSpooled() throws Exception {
        imds.serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            // Seq 2 is the next transition: writing its spool file finds the disk full.
            disk.refuseNextWrite(file -> file.getFileName().toString().startsWith(".0000000000000000002.json"),
                    "No space left on device");
            imds.serve(Docs.document(3, scheduled(A), scheduled(B)));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "state-write".equals(backoff.lastFailureKind()));
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(B).size() == 1);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);
        }
        assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId).containsExactly(A, B);
    }

    @Test
    void aCorruptStateFileIsSetAsideAndTheAgentStartsSafely() throws Exception {
        Files.writeString(state.resolve("state.json"), "{\"version\":1,\"nextSeq\":7,\"document\":{\"DocumentIncar");
        imds.serve(Docs.document(4, scheduled(A)));
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
        }
        try (Stream<Path> files = Files.list(state)) {
            assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.startsWith("state.json.corrupt-"));
        }
        assertThat(webhook.transitionsOf(A)).containsExactly("Scheduled");
    }

    @Test
    void aSlowSinkDeliversEverythingInOrderWhileAHealthyOneIsNotDelayed() throws Exception {
        try (WebhookReceiver slow = WebhookReceiver.start("s")) {
            slow.holdAfter(0); // answers nothing until released: no timing decides what it has when we look
            imds.serve(Docs.document(2, scheduled(A), scheduled(B)));
            try (InProcessAgent agent = InProcessAgent.builder(state).imds(imds)
                    .with("bridge.webhook.urls", slow.url() + "," + webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
                assertThat(slow.delivered()).as("the slow target is still busy").isEmpty();
                // A starts while its Scheduled is still on its way to the slow target.
                imds.serve(Docs.document(3, Docs.started(A, "Reboot", "vm"), scheduled(B)));
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 3);
                slow.release(); // the held requests fail (503) and are sent again
                await().atMost(Duration.ofSeconds(20)).until(() -> slow.delivered().size() == 3);
            }
            // In order per event (the webhook's lanes keep each event's transitions in order, not A before B).
            assertThat(slow.transitionsOf(A)).containsExactly("Scheduled", "Started");
            assertThat(slow.transitionsOf(B)).containsExactly("Scheduled");
        }
    }
}
