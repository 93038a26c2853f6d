package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spool documents: a sink given many messages by one document gets them in one file (SpoolDocument). */
class SpoolDocumentTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path root;

    private final Sink lanes = new Sink("w", "desc", "tpl", Sink.Target.NONE, e -> true, false, 4);
    private CamelContext camel;

    @AfterEach
    void closeCamel() throws Exception {
        if (camel != null) {
            camel.close();
        }
    }

    private static OutboundEvent event(long seq, String eventId) {
        ObjectNode ce = JsonNodeFactory.instance.objectNode();
        ce.put("specversion", "1.0");
        ce.put("id", "id-" + seq);
        ce.put("source", "test");
        ce.put("type", "t");
        ce.putObject("data").put("eventId", eventId);
        return new OutboundEvent(seq, ce);
    }

    private static List<OutboundEvent> events(long first, long last) {
        return LongStream.rangeClosed(first, last).mapToObj(seq -> event(seq, "EVENT-" + (seq % 37))).toList();
    }

    private List<String> files(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The lane's steps for one entry: its bytes loaded onto an exchange. */
    private Exchange loaded(Spool spool, SpoolEntry entry) throws IOException {
        if (camel == null) {
            camel = new DefaultCamelContext();
        }
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(entry);
        spool.load(exchange);
        return exchange;
    }

    /** The outbox spooled, then the agent started again: a new Spool, which reads the documents back when asked. */
    private Spool restartedAfterSpooling(List<OutboundEvent> outbox) {
        new Dispatcher(new SinkRegistry(List.of(lanes)), new Spool(root)).spool(outbox);
        return new Spool(root);
    }

    private void settle(Spool spool, SpoolEntry entry) throws IOException {
        spool.delivered(loaded(spool, entry).getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class));
    }

    @Test
    @DisplayName("1000 transitions for one sink: one file named after the last sequence number, one entry per "
            + "message in order, each in its event's lane with the CloudEvent's bytes; the file goes with the last one")
    void oneFileForABigDocument() throws IOException {
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(lanes)), spool);
        List<OutboundEvent> outbox = events(1, 1000);

        List<SpoolEntry> entries = dispatcher.spool(outbox);
        dispatcher.makeDurable(entries);

        assertThat(files(root.resolve("w"))).containsExactly("0000000000000001000.jsonl");
        assertThat(spool.depth("w")).isEqualTo(1000);
        assertThat(entries).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            OutboundEvent event = outbox.get(i);
            assertThat(entries.get(i).queue()).isEqualTo(lanes.queueFor(event.eventId()));
            assertThat(MAPPER.readTree(entries.get(i).payload())).isEqualTo(event.cloudEvent());
        }
        assertThat(SpoolContent.problem(entries.get(0).payload(), false)).isEmpty();
        for (SpoolEntry entry : entries.subList(0, 999)) {
            settle(spool, entry);
        }
        settle(spool, entries.get(5));
        assertThat(spool.depth("w")).as("a second confirmation counts once").isEqualTo(1);
        assertThat(files(root.resolve("w"))).as("kept until its last message is delivered").hasSize(1);

        settle(spool, entries.get(999));

        assertThat(files(root.resolve("w"))).isEmpty();
        assertThat(spool.depth("w")).isZero();
        assertThat(Spool.highestSequence(root)).isZero();
    }

    @Test
    @DisplayName("after a restart a document comes back whole (delivered ones again, same ids), between the "
            + "single-message files before and after it, each message in its event's lane; numbering resumes above it")
    void documentReplayedInOrder() throws IOException {
        Spool before = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(lanes)), before);
        dispatcher.spool(List.of(event(1, "EARLIER")));
        List<SpoolEntry> document = dispatcher.spool(events(2, 21));
        dispatcher.spool(List.of(event(22, "LATER")));
        settle(before, document.get(0));

        Spool after = new Spool(root);
        List<SpoolEntry> pending = after.pending(lanes);

        assertThat(pending).hasSize(22);
        assertThat(pending.subList(1, 21)).as("read from the file when sent, not held in memory")
                .allMatch(e -> e.payload() == null && e.document() != null);
        assertThat(pending).extracting(e -> e.file().getFileName().toString()).startsWith("0000000000000000001.json")
                .endsWith("0000000000000000022.json");
        List<String> ids = pending.stream().map(e -> id(after, e)).toList();
        assertThat(ids).containsExactlyElementsOf(LongStream.rangeClosed(1, 22).mapToObj(seq -> "id-" + seq).toList());
        for (int i = 1; i <= 20; i++) {
            assertThat(pending.get(i).queue()).isEqualTo(document.get(i - 1).queue());
        }
        assertThat(after.depth("w")).isEqualTo(22);
        assertThat(Spool.highestSequence(root)).isEqualTo(22);
    }

    private String id(Spool spool, SpoolEntry entry) {
        try {
            return MAPPER.readTree(loaded(spool, entry).getMessage().getBody(byte[].class)).get("id").asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    @DisplayName("the same outbox spooled again keeps the document; one a crash cut short is written again; a "
            + "complete one holding other messages is never overwritten")
    void respoolingADocument() throws IOException {
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(lanes)), spool);
        List<OutboundEvent> outbox = events(1, 10);
        dispatcher.spool(outbox);
        Path file = root.resolve("w").resolve("0000000000000000010.jsonl");
        byte[] whole = Files.readAllBytes(file);

        assertThat(dispatcher.spool(outbox)).hasSize(10);
        assertThat(spool.depth("w")).isEqualTo(10);
        assertThat(Files.readAllBytes(file)).isEqualTo(whole);

        Files.write(file, java.util.Arrays.copyOf(whole, whole.length / 2));
        dispatcher.spool(outbox);
        assertThat(Files.readAllBytes(file)).isEqualTo(whole);

        Files.write(file, new byte[whole.length]);
        dispatcher.spool(outbox);
        assertThat(Files.readAllBytes(file)).as("zeros where power loss left no data").isEqualTo(whole);

        byte[] other = SpoolDocument.content(List.of("{\"id\":\"other\"}".getBytes(StandardCharsets.UTF_8)));
        Files.write(file, other);
        assertThatThrownBy(() -> new Spool(root).writeDocument(lanes, 10, List.of("X"), List.of(new byte[]{'{', '}'})))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(Files.readAllBytes(file)).isEqualTo(other);
    }

    @Test
    @DisplayName("a refused message of a document (replayed after a restart) is dead-lettered as a file of its own; "
            + "the document goes once the others are delivered")
    void deadLetterFromADocument() throws IOException {
        List<OutboundEvent> outbox = events(1, 8);
        Spool spool = restartedAfterSpooling(outbox);
        DeadLetters deadLetters = new DeadLetters(spool, Clock.systemUTC());
        List<SpoolEntry> entries = spool.pending(lanes);

        deadLetters.moveToDeadLetter(entries.get(3), new IllegalStateException("HTTP 410 Gone"));
        for (SpoolEntry entry : entries) {
            if (entry != entries.get(3)) {
                settle(spool, entry);
            }
        }

        Path dead = root.resolve("w").resolve(DeadLetters.DIRECTORY);
        assertThat(files(dead)).containsExactly("0000000000000000008.jsonl.3.json", "0000000000000000008.jsonl.3.reason.txt");
        assertThat(Files.readAllBytes(dead.resolve("0000000000000000008.jsonl.3.json"))).isEqualTo(MAPPER.writeValueAsBytes(outbox.get(3).cloudEvent()));
        assertThat(files(root.resolve("w"))).containsExactly(DeadLetters.DIRECTORY);
        assertThat(spool.depth("w")).isZero();
        assertThat(deadLetters.count("w")).isEqualTo(1);
        assertThat(Spool.highestSequence(root)).as("numbering stays above dead letters too").isEqualTo(8);
    }

    private static List<String> ids(List<OutboundEvent> outbox, List<Integer> indexes) {
        return indexes.stream().map(i -> outbox.get(i).id()).toList();
    }

    @Test
    @DisplayName("a graceful stop rewrites a document under its name with only the messages still waiting, in order (one "
            + "sent but not answered waits); the next start replays only those; an answer after the stop counts against "
            + "the new file; a dead letter of a renumbered line gets a name of its own")
    void aStopKeepsOnlyTheWaitingMessages() throws IOException {
        List<OutboundEvent> outbox = events(1, 20);
        Spool spool = restartedAfterSpooling(outbox);
        DeadLetters deadLetters = new DeadLetters(spool, Clock.systemUTC());
        List<SpoolEntry> entries = spool.pending(lanes);
        for (int i : new int[]{0, 1, 2, 5, 19}) {
            settle(spool, entries.get(i));
        }
        deadLetters.moveToDeadLetter(entries.get(4), new IllegalStateException("HTTP 410 Gone"));
        Exchange inFlight = loaded(spool, entries.get(3));

        spool.keepOnlyWaitingDocuments();

        List<Integer> waiting = new java.util.ArrayList<>(List.of(3));
        waiting.addAll(java.util.stream.IntStream.rangeClosed(6, 18).boxed().toList());
        Path file = root.resolve("w").resolve("0000000000000000020.jsonl");
        assertThat(files(root.resolve("w"))).containsExactly("0000000000000000020.jsonl", DeadLetters.DIRECTORY);
        assertThat(SpoolDocument.messages(Files.readAllBytes(file))).extracting(m -> MAPPER.readTree(m).get("id").asText())
                .containsExactlyElementsOf(ids(outbox, waiting));
        assertThat(loaded(spool, entries.get(6)).getMessage().getBody()).as("its old line is not read in the new file")
                .isNull();
        Spool restarted = new Spool(root);
        List<SpoolEntry> replayed = restarted.pending(lanes);
        assertThat(replayed).extracting(e -> id(restarted, e)).containsExactlyElementsOf(ids(outbox, waiting));
        assertThat(restarted.depth("w")).isEqualTo(14);

        new DeadLetters(restarted, Clock.systemUTC()).moveToDeadLetter(replayed.get(4), new IllegalStateException("410"));
        Path dead = root.resolve("w").resolve(DeadLetters.DIRECTORY);
        assertThat(Files.readAllBytes(dead.resolve("0000000000000000020.jsonl.4.json")))
                .isEqualTo(MAPPER.writeValueAsBytes(outbox.get(4).cloudEvent()));
        assertThat(Files.readAllBytes(dead.resolve("0000000000000000020.jsonl.4-2.json")))
                .isEqualTo(MAPPER.writeValueAsBytes(outbox.get(waiting.get(4)).cloudEvent()));

        spool.delivered(inFlight.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class));
        assertThat(file).as("answered after the stop: one less waiting, the file stays").exists();
        for (int i : waiting.subList(1, waiting.size())) {
            settle(spool, entries.get(i));
        }
        assertThat(files(root.resolve("w"))).as("the last answer takes the file").containsExactly(DeadLetters.DIRECTORY);
    }

    @Test
    @DisplayName("at a stop a document none of whose messages left stays as it is; one that cannot be rewritten (no "
            + "room for the temporary file) stays whole and readable, and is rewritten at a later stop")
    void aStopThatChangesNothingOrCannotWrite() throws IOException {
        new Dispatcher(new SinkRegistry(List.of(lanes)), new Spool(root)).spool(events(1, 10));
        FaultyFileSystem disk = FaultyFileSystem.over(root.getFileSystem());
        Spool spool = new Spool(disk.wrap(root));
        Path file = root.resolve("w").resolve("0000000000000000010.jsonl");
        byte[] whole = Files.readAllBytes(file);
        List<SpoolEntry> entries = spool.pending(lanes);

        spool.keepOnlyWaitingDocuments();
        assertThat(Files.readAllBytes(file)).isEqualTo(whole);

        settle(spool, entries.get(0));
        disk.refuseWritesUnder(root, "No space left on device");
        spool.keepOnlyWaitingDocuments();
        assertThat(Files.readAllBytes(file)).isEqualTo(whole);
        assertThat(id(spool, entries.get(1))).isEqualTo("id-2");

        disk.allowWrites();
        spool.keepOnlyWaitingDocuments();
        assertThat(SpoolDocument.messages(Files.readAllBytes(file))).hasSize(9);
        assertThat(files(root.resolve("w"))).containsExactly("0000000000000000010.jsonl");
    }

    @Test
    @DisplayName("an outbox spooled again after a stop rewrote its document (the stop came before the outbox was "
            + "cleared) writes the document whole again: duplicates, never losses")
    void respoolingAfterAStop() throws IOException {
        List<OutboundEvent> outbox = events(1, 10);
        Spool spool = new Spool(root);
        List<SpoolEntry> entries = new Dispatcher(new SinkRegistry(List.of(lanes)), spool).spool(outbox);
        Path file = root.resolve("w").resolve("0000000000000000010.jsonl");
        byte[] whole = Files.readAllBytes(file);
        for (SpoolEntry entry : entries.subList(0, 4)) {
            settle(spool, entry);
        }
        spool.keepOnlyWaitingDocuments();
        assertThat(SpoolDocument.messages(Files.readAllBytes(file))).hasSize(6);

        new Dispatcher(new SinkRegistry(List.of(lanes)), new Spool(root)).spool(outbox);

        assertThat(Files.readAllBytes(file)).isEqualTo(whole);
    }

    @Test
    @DisplayName("fewer messages than a document's worth keep a file each, as before")
    void smallDispatchesKeepAFileEach() throws IOException {
        new Dispatcher(new SinkRegistry(List.of(lanes)), new Spool(root)).spool(events(1, SpoolDocument.MIN_MESSAGES - 1));

        assertThat(files(root.resolve("w"))).hasSize(SpoolDocument.MIN_MESSAGES - 1).allMatch(n -> n.endsWith(".json"));
    }

    @Test
    @DisplayName("a spool no configured sink owns counts the messages in its documents")
    void orphanedDocumentsAreCounted() throws IOException {
        Sink gone = new Sink("gone", "desc", "tpl", Sink.Target.NONE, e -> true);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(gone)), new Spool(root));
        dispatcher.spool(events(1, 12));
        dispatcher.spool(List.of(event(13, "X")));
        Spool spool = new Spool(root);
        SpoolInventory inventory = new SpoolInventory(root, new SinkRegistry(List.of(lanes)),
                new DeadLetters(spool, Clock.systemUTC()), Map.of());

        inventory.survey();

        assertThat(inventory.orphaned("gone")).isEqualTo(13);
    }
}
