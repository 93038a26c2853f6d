package io.github.scheduledeventsbridge.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.action.ActionState;
import io.github.scheduledeventsbridge.action.SnapshottingActionState;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Dispatcher;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The storage code on Windows' file-system rules (Jimfs, Configuration.windows()) with Windows' faults: a directory
 * cannot be opened, and files are held open by another process (antivirus, backup) for a few attempts.
 */
class WindowsStorageTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-20T10:15:00Z"), ZoneOffset.UTC);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final FileSystem jimfs = Jimfs.newFileSystem(Configuration.windows());
    private final FaultyFileSystem disk = FaultyFileSystem.over(jimfs).refuseDirectoryChannels();
    private final Path state = disk.getPath("C:\\ProgramData\\scheduled-events-bridge");
    private final Sink sink = new Sink("webhook-1", "desc", "tpl", Sink.Target.NONE, e -> true, false, 2);
    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void close() throws IOException {
        camel.close();
        jimfs.close();
    }

    private TransitionJournal journal() {
        VmIdentity identity = new VmIdentity(CLOCK);
        return new TransitionJournal(state, new TransitionDetector(), new CloudEventFactory(CLOCK, identity),
                new ResourceFilter(ResourceFilter.Mode.ALL, identity), CLOCK);
    }

    private static boolean named(Path file, String suffix) {
        return file.getFileName().toString().endsWith(suffix);
    }

    private List<String> temporaries() throws IOException {
        try (Stream<Path> files = Files.walk(state)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList();
        }
    }

    private void delivered(Spool spool, SpoolEntry entry) throws IOException {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(entry);
        spool.load(exchange);
        spool.delivered(exchange.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class));
    }

    @Test
    void theJournalAndTheActionStateAreWrittenAndReadBackWhileAnotherProcessHoldsTheirFiles() throws IOException {
        AtomicFiles.createDirectories(state);
        disk.holdOpen(file -> named(file, "state.json") || named(file, "actions.json"), 3);

        List<OutboundEvent> outbox = journal().record(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));
        ActionState actions = SnapshottingActionState.open(state);
        ObjectNode input = MAPPER.createObjectNode().put("id", "x");
        actions.request("prepare", "A", input);
        actions.finished(actions.entries().get(0), MAPPER.createObjectNode().put("exit", 0), false);
        actions.compactIfDue();

        assertThat(disk.sharingViolations()).as("renames that met a sharing violation: 3 for each file").isEqualTo(6);
        assertThat(journal().outbox()).as("read back after a restart").extracting(OutboundEvent::id)
                .containsExactlyElementsOf(outbox.stream().map(OutboundEvent::id).toList()).hasSize(1);
        assertThat(new ActionState(state).entries()).extracting(ActionState.Entry::status).containsExactly("finished");
        assertThat(disk.flushesWithoutWriteAccess()).as("every force had write access").isZero();
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void spooledMessagesAreForcedWithoutOpeningADirectoryAndLeaveWhenDeliveredThoughHeldOpen() throws IOException {
        Spool spool = new Spool(state.resolve("spool"));
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), spool);
        List<OutboundEvent> single = List.of(event(1, "A"));
        List<OutboundEvent> many = LongStream.rangeClosed(2, 11).mapToObj(seq -> event(seq, "E" + seq % 3)).toList();

        dispatcher.makeDurable(dispatcher.spool(single));
        dispatcher.makeDurable(dispatcher.spool(many));

        assertThat(disk.refusedDirectoryChannels()).as("no directory opened: Windows cannot").isZero();
        assertThat(disk.flushesWithoutWriteAccess()).isZero();
        Spool restarted = new Spool(state.resolve("spool"));
        List<SpoolEntry> pending = restarted.pending(sink);
        assertThat(pending).hasSize(11);

        disk.holdOpen(file -> named(file, ".json") || named(file, ".jsonl"), 2);
        for (SpoolEntry entry : pending) {
            delivered(restarted, entry);
        }
        assertThat(disk.sharingViolations()).as("2 for the message file, 2 for the document").isEqualTo(4);
        assertThat(restarted.depth(sink.id())).isZero();
        try (Stream<Path> left = Files.list(state.resolve("spool").resolve(sink.id()))) {
            assertThat(left).as("every file gone once delivered").isEmpty();
        }
    }

    @Test
    void aStopRewritesASpoolDocumentAndADeadLetterIsMovedWhileTheirFilesAreHeldOpen() throws IOException {
        Spool spool = new Spool(state.resolve("spool"));
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), spool);
        List<SpoolEntry> document = dispatcher.spool(LongStream.rangeClosed(1, 10).mapToObj(seq -> event(seq, "E")).toList());
        dispatcher.makeDurable(document);
        List<SpoolEntry> lone = dispatcher.spool(List.of(event(11, "L")));
        dispatcher.makeDurable(lone);
        disk.holdOpen(file -> named(file, ".jsonl") || named(file, "11.json") || named(file, ".reason.txt"), 2);

        for (SpoolEntry entry : document.subList(0, 4)) {
            delivered(spool, entry);
        }
        spool.keepOnlyWaitingDocuments();
        new DeadLetters(spool, CLOCK).moveToDeadLetter(lone.get(0), new IllegalStateException("HTTP 410 Gone"));

        Path sinkDir = state.resolve("spool").resolve(sink.id());
        assertThat(Files.readAllLines(document.get(0).file())).as("only the six waiting").hasSize(6);
        Path deadLetter = sinkDir.resolve(DeadLetters.DIRECTORY);
        try (Stream<Path> dead = Files.list(deadLetter)) {
            assertThat(dead.map(f -> f.getFileName().toString()).sorted())
                    .containsExactly("0000000000000000011.json", "0000000000000000011.reason.txt");
        }
        assertThat(disk.sharingViolations()).as("2 each: document, dead letter (source and target), reason")
                .isEqualTo(8);
        assertThat(disk.refusedDirectoryChannels()).isZero();
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void aFileIsForcedThroughAChannelThatMayWrite() throws IOException {
        Path file = Files.writeString(disk.getPath("C:\\0000000000000000001.json"), "{}");

        AtomicFiles.force(file);

        assertThat(disk.forces()).isEqualTo(1);
        assertThat(disk.flushesWithoutWriteAccess()).as("a flush Windows would have skipped").isZero();
    }

    @Test
    void aFileHeldLongerThanThePatienceFailsItsRenameWithTheViolationAndTheOldFileStays() throws IOException {
        Path file = Files.writeString(state.getFileSystem().getPath("C:\\old.json"), "old");
        Path replacement = Files.writeString(state.getFileSystem().getPath("C:\\new.json"), "new");
        disk.holdOpen(f -> named(f, "old.json"), Integer.MAX_VALUE);
        FileRules impatient = new FileRules(true, false, Duration.ofMillis(200));

        long start = System.nanoTime();
        assertThatThrownBy(() -> impatient.move(replacement, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING))
                .isInstanceOf(FileSystemException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(disk.sharingViolations()).as("tried again in between").isGreaterThan(2);
        assertThat(Files.readString(file)).isEqualTo("old");
    }

    @Test
    void onLinuxAnAccessDeniedIsFinalAndDirectoriesAreForced(@TempDir Path dir) throws IOException {
        FaultyFileSystem linux = FaultyFileSystem.over(dir.getFileSystem());
        Path target = linux.wrap(dir).resolve("state.json");
        AtomicFiles.write(target, "{}".getBytes(StandardCharsets.UTF_8));
        linux.holdOpen(f -> named(f, "state.json"), 1);

        assertThatThrownBy(() -> AtomicFiles.write(target, "{\"a\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(AccessDeniedException.class);
        assertThat(Files.readString(target)).isEqualTo("{}");
        linux.refuseDirectoryChannels();
        assertThatThrownBy(() -> AtomicFiles.force(linux.wrap(dir))).as("a directory is forced on Linux")
                .isInstanceOf(AccessDeniedException.class);
    }

    private static OutboundEvent event(long seq, String eventId) {
        ObjectNode ce = MAPPER.createObjectNode().put("specversion", "1.0").put("id", "id-" + seq);
        ce.putObject("data").put("transition", "Scheduled").put("eventId", eventId);
        return new OutboundEvent(seq, ce);
    }
}
