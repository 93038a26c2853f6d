package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Local faults: a full disk under the state and under the spool (a file system that answers one write with
 * "No space left on device", testing/FaultyFileSystem), a corrupt state file, and a slow sink.
 */
class FaultSuiteTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s").faultyDisk();

    private static String scheduled(String id) {
        return Docs.scheduled(id, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm");
    }

    @Test
    void aFullDiskUnderTheStateIsAClearErrorAndCorruptsNothing() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            // Delivery may beat the write that clears the outbox: the full disk is meant for the next document.
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.bean("journal",
                    io.github.scheduledeventsbridge.state.TransitionJournal.class).outbox().isEmpty());
            byte[] before = Files.readAllBytes(fixture.state().resolve("state.json"));
            // The next write of state.json (through its temporary file) finds the disk full.
            fixture.disk().refuseNextWrite(file -> file.getFileName().toString().startsWith(".state.json"), "No space left on device");
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "state-write".equals(backoff.lastFailureKind()));
            assertThat(Files.readAllBytes(fixture.state().resolve("state.json"))).as("state untouched").isEqualTo(before);
            // Space is back for the next write, and B is reported once.
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");
        assertThat(fixture.webhook().transitionsOf(B)).containsExactly("Scheduled");
    }

    @Test
    void aFullDiskUnderTheSpoolKeepsTheTransitionUntilItCanBeSpooled() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            // Seq 2 is the next transition: writing its spool file finds the disk full.
            fixture.disk().refuseNextWrite(file -> file.getFileName().toString().startsWith(".0000000000000000002.json"),
                    "No space left on device");
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "state-write".equals(backoff.lastFailureKind()));
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(B).size() == 1);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
        }
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::eventId).containsExactly(A, B);
    }

    @Test
    void aCorruptStateFileIsSetAsideAndTheAgentStartsSafely() throws Exception {
        Files.writeString(fixture.state().resolve("state.json"), "{\"version\":1,\"nextSeq\":7,\"document\":{\"DocumentIncar");
        fixture.imds().serve(Docs.document(4, scheduled(A)));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
        }
        try (Stream<Path> files = Files.list(fixture.state())) {
            assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.startsWith("state.json.corrupt-"));
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");
    }

    @Test
    void aSlowSinkDeliversEverythingInOrderWhileAHealthyOneIsNotDelayed() throws Exception {
        try (WebhookReceiver slow = WebhookReceiver.start("s")) {
            slow.holdAfter(0); // answers nothing until released: no timing decides what it has when we look
            fixture.imds().serve(Docs.document(2, scheduled(A), scheduled(B)));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.webhook.urls", slow.url() + "," + fixture.webhook().url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 2);
                assertThat(slow.delivered()).as("the slow target is still busy").isEmpty();
                // A starts while its Scheduled is still on its way to the slow target.
                fixture.imds().serve(Docs.document(3, Docs.started(A, "Reboot", "vm"), scheduled(B)));
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 3);
                slow.release(); // the held requests fail (503) and are sent again
                await().atMost(Duration.ofSeconds(20)).until(() -> slow.delivered().size() == 3);
            }
            // In order per event (the webhook's lanes keep each event's transitions in order, not A before B).
            assertThat(slow.transitionsOf(A)).containsExactly("Scheduled", "Started");
            assertThat(slow.transitionsOf(B)).containsExactly("Scheduled");
        }
    }
}
