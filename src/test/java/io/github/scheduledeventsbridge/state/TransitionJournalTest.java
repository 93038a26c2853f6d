package io.github.scheduledeventsbridge.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TransitionJournalTest {

    private static final Instant NOW = Instant.parse("2026-11-20T10:15:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final FileTime LONG_AGO = FileTime.from(Instant.parse("2001-01-01T00:00:00Z"));
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final ImdsDocument INC1 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_1);
    private static final ImdsDocument INC2 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2);
    private static final ImdsDocument INC3 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_3);
    private static final ImdsDocument INC4 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_4);

    @TempDir
    Path dir;

    private TransitionJournal journal() {
        VmIdentity identity = new VmIdentity(CLOCK);
        return new TransitionJournal(dir, new TransitionDetector(), new CloudEventFactory(CLOCK, identity),
                new ResourceFilter(ResourceFilter.Mode.ALL, identity), CLOCK);
    }

    private Path stateFile() {
        return dir.resolve("state.json");
    }

    @Test
    @DisplayName("a fresh journal has no state, no document and an empty outbox")
    void fresh() {
        TransitionJournal journal = journal();

        assertThat(journal.lastDocument()).isEqualTo(ImdsDocument.NONE);
        assertThat(journal.outbox()).isEmpty();
        assertThat(stateFile()).doesNotExist();
    }

    @Test
    @DisplayName("first record of a document with one Scheduled event: one OutboundEvent, seq 1, state.json written")
    void firstRecord() throws IOException {
        TransitionJournal journal = journal();

        List<OutboundEvent> out = journal.record(INC2);

        assertThat(out).hasSize(1);
        OutboundEvent event = out.get(0);
        assertThat(event.seq()).isEqualTo(1);
        assertThat(event.transition()).isEqualTo("Scheduled");
        assertThat(event.eventId()).isEqualTo(LiveMigrationSeed.EVENT_ID);
        assertThat(event.eventType()).isEqualTo("Freeze");
        assertThat(event.resources()).containsExactly("WestNO_0", "WestNO_1");
        assertThat(event.cloudEvent().at("/data/documentIncarnation").asLong()).isEqualTo(2);
        assertThat(journal.outbox()).isEqualTo(out);
        assertThat(journal.lastDocument()).isEqualTo(INC2);

        assertThat(stateFile()).isRegularFile();
        JsonNode state = JSON.readTree(stateFile().toFile());
        assertThat(state.at("/document/DocumentIncarnation").asLong()).isEqualTo(2);
        assertThat(state.at("/document/Events/0/EventId").asText()).isEqualTo(LiveMigrationSeed.EVENT_ID);
        assertThat(state.get("outbox")).hasSize(1);
        assertThat(state.at("/outbox/0/seq").asLong()).isEqualTo(1);
        assertThat(state.at("/outbox/0/event/id").asText()).isEqualTo(event.id());
        assertThat(state.get("nextSeq").asLong()).isEqualTo(2);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary file left").containsExactly("state.json");
        }
    }

    @Test
    @DisplayName("an empty first document is recorded too, with no transition")
    void emptyFirstDocument() throws IOException {
        TransitionJournal journal = journal();

        assertThat(journal.record(INC1)).isEmpty();
        assertThat(stateFile()).isRegularFile();
        assertThat(journal.lastDocument()).isEqualTo(INC1);
    }

    @Test
    @DisplayName("the same document again: the (spooled, empty) outbox is returned and the file is not rewritten")
    void sameDocumentAgainAfterSpool() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);
        journal.outboxSpooled();
        assertThat(journal.outbox()).isEmpty();
        byte[] before = Files.readAllBytes(stateFile());
        Files.setLastModifiedTime(stateFile(), LONG_AGO);

        List<OutboundEvent> again = journal.record(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));

        assertThat(again).isEmpty();
        assertThat(Files.getLastModifiedTime(stateFile())).as("state.json untouched").isEqualTo(LONG_AGO);
        assertThat(Files.readAllBytes(stateFile())).isEqualTo(before);
    }

    @Test
    @DisplayName("the same document again before spooling: the pending outbox is handed out again, unchanged")
    void sameDocumentAgainBeforeSpool() throws IOException {
        TransitionJournal journal = journal();
        List<OutboundEvent> first = journal.record(INC2);
        Files.setLastModifiedTime(stateFile(), LONG_AGO);

        List<OutboundEvent> again = journal.record(INC2);

        assertThat(again).isEqualTo(first);
        assertThat(again).extracting(OutboundEvent::seq).containsExactly(1L);
        assertThat(Files.getLastModifiedTime(stateFile())).isEqualTo(LONG_AGO);
    }

    @Test
    @DisplayName("outboxSpooled empties the outbox on disk, and is a no-op when it is already empty")
    void outboxSpooled() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);

        journal.outboxSpooled();

        assertThat(journal.outbox()).isEmpty();
        assertThat(JSON.readTree(stateFile().toFile()).get("outbox")).isEmpty();
        Files.setLastModifiedTime(stateFile(), LONG_AGO);
        journal.outboxSpooled();
        assertThat(Files.getLastModifiedTime(stateFile())).isEqualTo(LONG_AGO);
    }

    @Test
    @DisplayName("a restart remembers the document (no repeat) and continues the sequence")
    void restartRemembers() throws IOException {
        TransitionJournal first = journal();
        first.record(INC2);
        first.outboxSpooled();

        TransitionJournal restarted = journal();

        assertThat(restarted.lastDocument()).isEqualTo(INC2);
        assertThat(restarted.outbox()).isEmpty();
        assertThat(restarted.record(INC2)).isEmpty();
        List<OutboundEvent> started = restarted.record(INC3);
        assertThat(started).extracting(OutboundEvent::seq, OutboundEvent::transition)
                .containsExactly(tuple(2L, "Started"));
    }

    @Test
    @DisplayName("the whole seed sequence across restarts yields Scheduled, Started, Completed with seq 1, 2, 3")
    void seedSequenceAcrossRestarts() throws IOException {
        List<String> transitions = new ArrayList<>();
        List<Long> seqs = new ArrayList<>();
        for (ImdsDocument doc : List.of(INC1, INC2, INC3, INC4)) {
            TransitionJournal journal = journal();
            for (OutboundEvent e : journal.record(doc)) {
                transitions.add(e.transition());
                seqs.add(e.seq());
            }
            journal.outboxSpooled();
        }

        assertThat(transitions).containsExactly("Scheduled", "Started", "Completed");
        assertThat(seqs).containsExactly(1L, 2L, 3L);
    }

    @Test
    @DisplayName("crash between record and spool: the outbox survives the restart, and is gone once spooled")
    void outboxSurvivesRestart() throws IOException {
        OutboundEvent recorded = journal().record(INC2).get(0);

        TransitionJournal restarted = journal();

        assertThat(restarted.outbox()).hasSize(1);
        OutboundEvent survived = restarted.outbox().get(0);
        assertThat(survived.seq()).isEqualTo(1);
        assertThat(survived.id()).isEqualTo(recorded.id());
        assertThat(survived.cloudEvent().toString()).as("same JSON").isEqualTo(recorded.cloudEvent().toString());
        assertThat(restarted.record(INC2)).as("same document after restart hands the outbox out again")
                .extracting(OutboundEvent::id).containsExactly(recorded.id());

        restarted.outboxSpooled();

        assertThat(journal().outbox()).isEmpty();
    }

    @Test
    @DisplayName("a new document before the outbox was spooled keeps the old entries ahead of the new ones")
    void newDocumentKeepsUnspooledOutbox() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);

        List<OutboundEvent> out = journal.record(INC3);

        assertThat(out).extracting(OutboundEvent::seq, OutboundEvent::transition).containsExactly(
                tuple(1L, "Scheduled"),
                tuple(2L, "Started"));
    }

    @Test
    @DisplayName("a garbage state.json is moved aside to state.json.corrupt-* and the journal starts empty")
    void corruptGarbage() throws IOException {
        Files.writeString(stateFile(), "this is not json {{{");

        TransitionJournal journal = journal();

        assertStartedEmptyAfterQuarantine(journal, "this is not json {{{".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("a truncated state.json is moved aside and the journal starts empty")
    void corruptTruncated() throws IOException {
        TransitionJournal writer = journal();
        writer.record(INC2);
        writer.record(INC3);
        byte[] full = Files.readAllBytes(stateFile());
        byte[] half = Arrays.copyOf(full, full.length / 2);
        Files.write(stateFile(), half);

        TransitionJournal journal = journal();

        assertStartedEmptyAfterQuarantine(journal, half);
    }

    @Test
    @DisplayName("an empty state.json is moved aside and the journal starts empty")
    void corruptEmpty() throws IOException {
        Files.write(stateFile(), new byte[0]);

        assertStartedEmptyAfterQuarantine(journal(), new byte[0]);
    }

    @Test
    @DisplayName("valid JSON of the wrong shape is moved aside and the journal starts empty")
    void corruptWrongShape() throws IOException {
        byte[] content = "{\"version\":1,\"document\":{\"Events\":[]},\"outbox\":[]}".getBytes(StandardCharsets.UTF_8);
        Files.write(stateFile(), content);

        assertStartedEmptyAfterQuarantine(journal(), content);
    }

    private void assertStartedEmptyAfterQuarantine(TransitionJournal journal, byte[] corruptContent) throws IOException {
        Path aside = dir.resolve("state.json.corrupt-" + NOW.toEpochMilli());
        assertThat(aside).isRegularFile();
        assertThat(Files.readAllBytes(aside)).isEqualTo(corruptContent);
        assertThat(stateFile()).doesNotExist();
        assertThat(journal.lastDocument()).isEqualTo(ImdsDocument.NONE);
        assertThat(journal.outbox()).isEmpty();

        List<OutboundEvent> out = journal.record(INC2);

        assertThat(out).extracting(OutboundEvent::seq, OutboundEvent::transition)
                .containsExactly(tuple(1L, "Scheduled"));
        assertThat(stateFile()).isRegularFile();
    }

    @Test
    @DisplayName("record(List) appends Approved transitions with increasing seq, persisted across a restart")
    void recordApprovals() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);
        journal.outboxSpooled();
        ScheduledEvent event = INC2.events().get(0);
        ScheduledEvent other = new ScheduledEvent("B0000000-0000-4000-8000-000000000000", "Reboot", "VirtualMachine",
                List.of("vm1"), "Scheduled", "", null, "User", -1);

        List<OutboundEvent> out = journal.record(List.of(
                new DetectedTransition(TransitionType.Approved, event, "Scheduled", "Scheduled", 2),
                new DetectedTransition(TransitionType.Approved, other, "Scheduled", "Scheduled", 2)));

        assertThat(out).extracting(OutboundEvent::seq, OutboundEvent::transition, OutboundEvent::eventId)
                .containsExactly(
                        tuple(2L, "Approved", LiveMigrationSeed.EVENT_ID),
                        tuple(3L, "Approved", other.eventId()));
        assertThat(journal.lastDocument()).as("an approval does not change the document").isEqualTo(INC2);

        TransitionJournal restarted = journal();
        assertThat(restarted.outbox()).extracting(OutboundEvent::seq).containsExactly(2L, 3L);
        assertThat(restarted.record(INC3)).extracting(OutboundEvent::seq, OutboundEvent::transition)
                .containsExactly(
                        tuple(2L, "Approved"),
                        tuple(3L, "Approved"),
                        tuple(4L, "Started"));
    }

    @Test
    @DisplayName("record(List) keeps an unspooled outbox ahead of the approvals")
    void approvalsAfterUnspooledOutbox() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);

        List<OutboundEvent> out = journal.record(List.of(new DetectedTransition(TransitionType.Approved,
                INC2.events().get(0), "Scheduled", "Scheduled", 2)));

        assertThat(out).extracting(OutboundEvent::seq, OutboundEvent::transition).containsExactly(
                tuple(1L, "Scheduled"),
                tuple(2L, "Approved"));
    }

    @Test
    @DisplayName("transitions rejected by the resource filter are recorded as seen but take no seq")
    void filteredTransitionsTakeNoSeq() throws IOException {
        VmIdentity identity = new VmIdentity(CLOCK);
        identity.set(new VmIdentity.Vm("vm-elsewhere", "id", "/subscriptions/0000/vm-elsewhere", "westeurope"));
        TransitionJournal journal = new TransitionJournal(dir, new TransitionDetector(),
                new CloudEventFactory(CLOCK, identity), new ResourceFilter(ResourceFilter.Mode.OWN, identity), CLOCK);

        assertThat(journal.record(INC2)).isEmpty();
        assertThat(journal.lastDocument()).isEqualTo(INC2);
        assertThat(JSON.readTree(stateFile().toFile()).get("nextSeq").asLong()).isEqualTo(1);
    }

    @Test
    @DisplayName("approved events (not dry runs) are kept in the state while IMDS lists them, across restarts")
    void approvedEventsSurviveRestartsWhileListed() throws IOException {
        TransitionJournal journal = journal();
        journal.record(INC2);
        ScheduledEvent event = INC2.events().get(0);
        ScheduledEvent dry = new ScheduledEvent("D0000000-0000-4000-8000-000000000000", "Reboot", "VirtualMachine",
                List.of("vm1"), "Scheduled", "", null, "User", -1);
        journal.record(List.of(new DetectedTransition(TransitionType.Approved, event, "Scheduled", "Scheduled", 2,
                        new DetectedTransition.Approval("remote", null, false)),
                new DetectedTransition(TransitionType.Approved, dry, "Scheduled", "Scheduled", 2,
                        new DetectedTransition.Approval("policy", "user-initiated", true))));
        journal.outboxSpooled();
        assertThat(journal.approvedEvents()).containsExactly(event.key());

        TransitionJournal restarted = journal();
        assertThat(restarted.approvedEvents()).containsExactly(event.key());
        restarted.record(INC3);
        assertThat(restarted.approvedEvents()).as("Started: still listed").containsExactly(event.key());
        restarted.record(INC4);
        assertThat(restarted.approvedEvents()).as("gone from the document").isEmpty();
        assertThat(journal().approvedEvents()).isEmpty();
    }
}
