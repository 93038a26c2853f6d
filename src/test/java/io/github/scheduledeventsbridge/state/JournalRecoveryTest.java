package io.github.scheduledeventsbridge.state;

import io.github.scheduledeventsbridge.storage.StateWriteException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The journal after losing its state, while the disk refuses writes, and across restarts that hid a phase. */
class JournalRecoveryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REBOOT = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

    @TempDir
    Path dir;
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final AtomicReference<Instant> bootTime = new AtomicReference<>(T0.minus(Duration.ofDays(3)));
    private final StorageHealth health = new StorageHealth();
    private final FaultyFileSystem disk = FaultyFileSystem.over(java.nio.file.FileSystems.getDefault());

    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private TransitionJournal journal() {
        VmIdentity identity = new VmIdentity(clock);
        return new TransitionJournal(disk.wrap(dir), new TransitionDetector(), new CloudEventFactory(clock, identity),
                new ResourceFilter(ResourceFilter.Mode.ALL, identity), clock,
                new ObservationWatch(Duration.ofSeconds(10), bootTime::get, clock), health);
    }

    private static ImdsDocument doc(long incarnation, String... events) {
        return new ImdsDocumentParser().parse(Docs.document(incarnation, events));
    }

    private static String scheduledReboot() {
        return Docs.scheduled(REBOOT, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm");
    }

    /** Records and hands the outbox to the (imaginary) spool, as the dispatch route does. */
    private TransitionJournal recordAndSpool(TransitionJournal journal, ImdsDocument document) throws IOException {
        journal.record(document);
        journal.outboxSpooled();
        return journal;
    }

    private void advance(Duration d) {
        now.set(now.get().plus(d));
    }

    /** Writes of state.json fail until {@link #allowWrites}, as on a full disk. */
    private void refuseWrites() {
        disk.refuseWritesUnder(dir, "No space left on device");
    }

    private void allowWrites() {
        disk.allowWrites();
    }

    @Test
    @DisplayName("with state.json deleted, numbering continues above every spooled message, dead letters included")
    void lostStateNeverReusesASequenceNumber() throws IOException {
        Path sink = Files.createDirectories(dir.resolve("spool").resolve("webhook-1"));
        Files.writeString(sink.resolve("0000000000000000005.json"), "{}");
        Path dead = Files.createDirectories(dir.resolve("spool").resolve("webhook-2").resolve("dead-letter"));
        Files.writeString(dead.resolve("0000000000000000009.json"), "{}");

        List<OutboundEvent> out = journal().record(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));

        assertThat(out).extracting(OutboundEvent::seq).containsExactly(10L);
    }

    @Test
    @DisplayName("with a corrupt state.json, numbering continues above every spooled message")
    void corruptStateNeverReusesASequenceNumber() throws IOException {
        Path sink = Files.createDirectories(dir.resolve("spool").resolve("webhook-1"));
        Files.writeString(sink.resolve("0000000000000000003.json"), "{}");
        Files.writeString(dir.resolve("state.json"), "{\"version\":1,\"nextSeq\":4,\"docum");

        assertThat(journal().record(doc(2, scheduledReboot()))).extracting(OutboundEvent::seq).containsExactly(4L);
    }

    @Test
    @DisplayName("a state.json corrupt only after its document is set aside whole: nothing of it is kept, every listed event is reported again")
    void stateCorruptAfterItsDocumentKeepsNothingOfIt() throws IOException {
        recordAndSpool(journal(), doc(2, scheduledReboot()));
        var root = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(dir.resolve("state.json").toFile());
        root.put("lastObserved", "not a time");
        JSON.writeValue(dir.resolve("state.json").toFile(), root);

        List<OutboundEvent> out = journal().record(doc(2, scheduledReboot()));

        assertThat(out).extracting(OutboundEvent::transition).as("as the log line says: reported again")
                .containsExactly("Scheduled");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.startsWith("state.json.corrupt-"));
        }
    }

    @Test
    @DisplayName("the last observation is kept in state.json; a state file without it counts as not watching")
    void lastObservationPersisted() throws IOException {
        recordAndSpool(journal(), doc(2, scheduledReboot()));
        assertThat(JSON.readTree(dir.resolve("state.json").toFile()).path("lastObserved").asText())
                .isEqualTo(T0.toString());

        // An older version's state file: no lastObserved. The event vanished; NotBefore (2022) has passed.
        var root = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(dir.resolve("state.json").toFile());
        root.remove("lastObserved");
        JSON.writeValue(dir.resolve("state.json").toFile(), root);
        advance(Duration.ofSeconds(1));

        List<OutboundEvent> out = journal().record(doc(3));

        assertThat(out).extracting(OutboundEvent::transition).containsExactly("Completed");
        assertThat(out.get(0).data().path("startObserved").isBoolean()).isTrue();
        assertThat(out.get(0).data().path("startObserved").asBoolean()).isFalse();
    }

    @Test
    @DisplayName("a Scheduled Reboot gone after a restart: Completed when the VM booted since, Cancelled when it did not")
    void rebootAcrossRestartDecidedByBootTime() throws IOException {
        recordAndSpool(journal(), doc(2, scheduledReboot()));
        advance(Duration.ofMinutes(5));
        bootTime.set(T0.plus(Duration.ofMinutes(4)));

        List<OutboundEvent> out = journal().record(doc(3));

        assertThat(out).extracting(OutboundEvent::transition).containsExactly("Completed");
        assertThat(out.get(0).data().path("startObserved").asBoolean(true)).isFalse();
    }

    @Test
    @DisplayName("a restart without a reboot: the vanished Scheduled Reboot is Cancelled, startObserved=false")
    void rebootAcrossRestartWithoutBoot() throws IOException {
        recordAndSpool(journal(), doc(2, scheduledReboot()));
        advance(Duration.ofMinutes(5));

        List<OutboundEvent> out = journal().record(doc(3));

        assertThat(out).extracting(OutboundEvent::transition).containsExactly("Cancelled");
        assertThat(out.get(0).data().path("startObserved").asBoolean(true)).isFalse();
    }

    @Test
    @DisplayName("the first poll of a run is persisted even unchanged: a boot before it is not taken for the event's")
    void firstObservationOfARunIsPersisted() throws IOException {
        recordAndSpool(journal(), doc(2, scheduledReboot()));
        // The VM reboots for another reason; the agent comes back and still sees the event Scheduled.
        bootTime.set(T0.plus(Duration.ofMinutes(1)));
        advance(Duration.ofMinutes(2));
        journal().record(doc(2, scheduledReboot()));
        // Restarted again (no reboot), and then the event is withdrawn.
        advance(Duration.ofMinutes(2));

        assertThat(journal().record(doc(3))).extracting(OutboundEvent::transition).containsExactly("Cancelled");
    }

    @Test
    @DisplayName("while watching without a gap, Scheduled -> absent is Cancelled without startObserved")
    void watchingContinuously() throws IOException {
        TransitionJournal journal = journal();
        recordAndSpool(journal, doc(2, scheduledReboot()));
        advance(Duration.ofSeconds(1));
        journal.record(doc(2, scheduledReboot()));
        advance(Duration.ofSeconds(1));
        bootTime.set(now.get());     // no effect while watching

        List<OutboundEvent> out = journal.record(doc(3));

        assertThat(out).extracting(OutboundEvent::transition).containsExactly("Cancelled");
        assertThat(out.get(0).data().has("startObserved")).isFalse();
    }

    @Test
    @DisplayName("a gap between polls longer than the limit counts as not watching")
    void longGapIsNotWatching() throws IOException {
        TransitionJournal journal = journal();
        recordAndSpool(journal, doc(2, Docs.scheduled(REBOOT, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")));
        advance(Duration.ofSeconds(11));

        List<OutboundEvent> out = journal.record(doc(3));

        assertThat(out).extracting(OutboundEvent::transition).containsExactly("Completed");
        assertThat(out.get(0).data().path("startObserved").asBoolean(true)).isFalse();
    }

    @Test
    @DisplayName("a failed state write is reported until a write succeeds; the retried record loses nothing")
    void stateWriteFailureIsVisibleUntilAWriteWorks() throws IOException {
        TransitionJournal journal = journal();
        journal.record(doc(2, scheduledReboot()));
        journal.outboxSpooled();
        refuseWrites();

        assertThatThrownBy(() -> journal.record(doc(3))).isInstanceOf(StateWriteException.class);
        assertThat(health.problem()).hasValueSatisfying(p -> assertThat(p).contains("state write failed", "state.json"));
        assertThatThrownBy(() -> journal.record(doc(3))).isInstanceOf(StateWriteException.class);

        allowWrites();
        assertThat(journal.record(doc(3))).extracting(OutboundEvent::transition).containsExactly("Cancelled");
        assertThat(health.problem()).isEmpty();
    }

    @Test
    @DisplayName("an approval that cannot be written is kept and recorded with the next poll, even an unchanged one")
    void unrecordedApprovalFollowsWithTheNextPoll() throws IOException {
        TransitionJournal journal = journal();
        ImdsDocument document = doc(2, scheduledReboot());
        journal.record(document);
        journal.outboxSpooled();
        ScheduledEvent event = document.events().get(0);
        refuseWrites();

        boolean recorded = journal.recordApproved(List.of(new DetectedTransition(TransitionType.Approved, event,
                "Scheduled", "Scheduled", 2, new DetectedTransition.Approval("remote", null, false))));

        assertThat(recorded).isFalse();
        assertThat(journal.outbox()).isEmpty();
        allowWrites();
        advance(Duration.ofSeconds(1));
        assertThat(journal.record(document)).extracting(OutboundEvent::seq, OutboundEvent::transition)
                .containsExactly(tuple(2L, "Approved"));
        assertThat(journal.record(document)).as("recorded once").hasSize(1);
    }

    @Test
    @DisplayName("each transition is logged once, when it is on disk: also one recorded just before a stop, not again after it")
    void eachTransitionIsLoggedOnceWhenItIsOnDisk() throws IOException {
        List<String> logged = new ArrayList<>();
        Consumer<List<OutboundEvent>> log = recorded -> recorded.forEach(t -> logged.add(t.seq() + " " + t.transition()));
        TransitionJournal journal = journal().loggingTo(log);
        ImdsDocument document = doc(2, scheduledReboot());
        ScheduledEvent event = document.events().get(0);
        journal.record(document);
        journal.record(document);
        assertThat(logged).as("an outbox handed out again is not logged again").containsExactly("1 Scheduled");

        refuseWrites();
        journal.recordApproved(List.of(approval(event)));
        assertThat(logged).as("not on disk yet").containsExactly("1 Scheduled");
        allowWrites();
        advance(Duration.ofSeconds(1));
        journal.record(document);
        // Recorded, then the agent stops before any dispatch: logged already, not left to the next run's.
        journal.recordApproved(List.of(approval(event)));
        assertThat(logged).containsExactly("1 Scheduled", "2 Approved", "3 Approved");

        TransitionJournal restarted = journal().loggingTo(log);
        assertThat(restarted.outbox()).hasSize(3);
        restarted.record(document);
        restarted.outboxSpooled();
        assertThat(logged).as("the restart logs nothing again").hasSize(3);
    }

    private static DetectedTransition approval(ScheduledEvent event) {
        return new DetectedTransition(TransitionType.Approved, event, "Scheduled", "Scheduled", 2,
                new DetectedTransition.Approval("remote", null, false));
    }
}
