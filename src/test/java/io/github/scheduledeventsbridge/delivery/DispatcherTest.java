package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DispatcherTest {

    @TempDir
    Path root;

    private static OutboundEvent event(long seq, String transition, String eventId) {
        ObjectNode ce = JsonNodeFactory.instance.objectNode();
        ce.put("specversion", "1.0");
        ce.put("id", "id-" + seq);
        ObjectNode data = ce.putObject("data");
        data.put("transition", transition);
        data.put("eventId", eventId);
        data.put("eventType", "Freeze");
        data.putArray("resources").add("vm1");
        return new OutboundEvent(seq, ce);
    }

    private static List<String> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    @DisplayName("each event goes to every sink whose filter accepts it: one file per sink per event")
    void respectsFilters() throws IOException {
        Sink everything = new Sink("all", "every transition", "tpl", Sink.Target.NONE, e -> true);
        Sink startsOnly = new Sink("starts", "only Started", "tpl", Sink.Target.NONE, e -> e.transition().equals("Started"));
        Sink nothing = new Sink("none", "nothing", "tpl", Sink.Target.NONE, e -> false);
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(everything, startsOnly, nothing)), spool);

        List<SpoolEntry> entries = dispatcher.spool(List.of(
                event(1, "Scheduled", "A"), event(2, "Started", "A"), event(3, "Completed", "A")));

        assertThat(entries).extracting(SpoolEntry::sinkId).containsExactly("all", "all", "all", "starts");
        assertThat(files(root.resolve("all"))).containsExactly(
                "0000000000000000001.json", "0000000000000000002.json", "0000000000000000003.json");
        assertThat(files(root.resolve("starts"))).containsExactly("0000000000000000002.json");
        assertThat(files(root.resolve("none"))).isEmpty();
        assertThat(spool.depth("all")).isEqualTo(3);
        assertThat(spool.depth("starts")).isEqualTo(1);
        assertThat(spool.depth("none")).isZero();
    }

    @Test
    @DisplayName("the spooled file is exactly the CloudEvent JSON")
    void fileIsTheCloudEvent() throws IOException {
        Sink sink = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        OutboundEvent event = event(5, "Scheduled", "A");
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), new Spool(root));

        SpoolEntry entry = dispatcher.spool(List.of(event)).get(0);

        assertThat(new ObjectMapper().readTree(entry.file().toFile())).isEqualTo(event.cloudEvent());
        assertThat(entry.queue()).isEqualTo("seda:sink-a");
    }

    @Test
    @DisplayName("spooling the same outbox twice (crash before outboxSpooled) duplicates nothing")
    void respoolIsIdempotent() throws IOException {
        Sink sink = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), spool);
        List<OutboundEvent> outbox = List.of(event(1, "Scheduled", "A"), event(2, "Scheduled", "B"));

        dispatcher.spool(outbox);
        dispatcher.spool(outbox);

        assertThat(files(root.resolve("a"))).hasSize(2);
        assertThat(spool.depth("a")).isEqualTo(2);
    }

    @Test
    @DisplayName("written files are queued before they are forced: a lane may deliver (delete) some first, forcing "
            + "the rest still succeeds; after a crash before the outbox was cleared the delivered ones come back "
            + "(delivered twice, same id) and the others are kept")
    void deliveredBeforeForcedThenRespooled() throws IOException {
        Sink sink = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true, false, 4);
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), spool);
        // Fewer than a spool document's worth: a file per message (SpoolDocumentTest has the documents).
        List<OutboundEvent> outbox = java.util.stream.LongStream.rangeClosed(1, SpoolDocument.MIN_MESSAGES - 1)
                .mapToObj(seq -> event(seq, "Scheduled", "E" + seq)).toList();
        List<SpoolEntry> written = dispatcher.spool(outbox);
        byte[] third = Files.readAllBytes(written.get(2).file());
        for (SpoolEntry delivered : written.subList(0, 4)) {
            Files.delete(delivered.file());
        }

        dispatcher.makeDurable(written);

        assertThat(files(root.resolve("a"))).hasSize(outbox.size() - 4);
        List<SpoolEntry> again = dispatcher.spool(outbox);
        assertThat(again).isEqualTo(written);
        assertThat(files(root.resolve("a"))).hasSize(outbox.size());
        assertThat(Files.readAllBytes(written.get(2).file())).isEqualTo(third);
    }

    @Test
    @DisplayName("a batched sink's outbox re-spooled after a crash with a transition recorded in between: the batch "
            + "file is kept, the newcomer gets a batch of its own, nothing is refused")
    void batchRespooledWithALaterTransition() throws IOException {
        Sink hub = new Sink("hub", "desc", "tpl", Sink.Target.NONE, e -> true, true);
        Spool spool = new Spool(root);
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(hub)), spool);
        OutboundEvent a = event(1, "Scheduled", "A");
        OutboundEvent b = event(2, "Scheduled", "B");
        OutboundEvent approved = event(3, "Approved", "A");
        dispatcher.spool(List.of(a, b));
        byte[] first = Files.readAllBytes(root.resolve("hub").resolve("0000000000000000001.json"));

        List<SpoolEntry> again = dispatcher.spool(List.of(a, b, approved));

        assertThat(files(root.resolve("hub"))).containsExactly("0000000000000000001.json", "0000000000000000003.json");
        assertThat(Files.readAllBytes(root.resolve("hub").resolve("0000000000000000001.json"))).isEqualTo(first);
        assertThat(new ObjectMapper().readTree(root.resolve("hub").resolve("0000000000000000003.json").toFile()))
                .extracting(n -> n.get("id").asText()).containsExactly("id-3");
        assertThat(again).extracting(e -> e.file().getFileName().toString()).containsExactly("0000000000000000003.json");
        assertThat(dispatcher.spool(List.of(a, b, approved))).hasSize(1);
    }

    @Test
    @DisplayName("a spool that cannot be written is a StateWriteException and a storage problem until spooling works")
    void spoolFailureIsReported() throws IOException {
        Sink sink = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        io.github.scheduledeventsbridge.storage.StorageHealth health = new io.github.scheduledeventsbridge.storage.StorageHealth();
        FaultyFileSystem disk = FaultyFileSystem.over(root.getFileSystem());
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), new Spool(disk.wrap(root)), health);
        disk.refuseWritesUnder(root.resolve("a"), "No space left on device");
        List<OutboundEvent> outbox = List.of(event(1, "Scheduled", "A"));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dispatcher.spool(outbox))
                .isInstanceOf(io.github.scheduledeventsbridge.storage.StateWriteException.class);
        assertThat(health.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("spool write failed: cannot write"));

        disk.allowWrites();
        assertThat(dispatcher.spool(outbox)).hasSize(1);
        assertThat(health.problem()).isEmpty();
    }

    @Test
    @DisplayName("one file of a document that cannot be written fails the whole spooling, and spooling the "
            + "outbox again once it can be written stores each message once")
    void aFailedWriteInABigDocument() throws IOException {
        Sink sink = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        FaultyFileSystem disk = FaultyFileSystem.over(root.getFileSystem())
                .refuseWrites(file -> file.getFileName().toString().startsWith(".0000000000000000005.json"), "No space left on device");
        Spool spool = new Spool(disk.wrap(root));
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of(sink)), spool);
        // Fewer than a spool document's worth: a file per message.
        int messages = SpoolDocument.MIN_MESSAGES - 1;
        List<OutboundEvent> outbox = java.util.stream.LongStream.rangeClosed(1, messages)
                .mapToObj(seq -> event(seq, "Scheduled", "E" + seq)).toList();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dispatcher.spool(outbox))
                .isInstanceOf(io.github.scheduledeventsbridge.storage.StateWriteException.class);
        assertThat(files(root.resolve("a"))).contains("0000000000000000004.json")
                .doesNotContain("0000000000000000005.json").noneMatch(name -> name.endsWith(".tmp"));

        disk.allowWrites();
        assertThat(dispatcher.spool(outbox)).hasSize(messages);
        assertThat(files(root.resolve("a"))).hasSize(messages);
        assertThat(spool.depth("a")).isEqualTo(messages);
    }

    @Test
    @DisplayName("pending lists every sink's waiting messages, each sink's oldest first")
    void pendingAcrossSinks() throws IOException {
        Sink a = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        Sink b = new Sink("b", "desc", "tpl", Sink.Target.NONE, e -> e.eventId().equals("B"));
        Spool spool = new Spool(root);
        new Dispatcher(new SinkRegistry(List.of(a, b)), spool).spool(List.of(
                event(11, "Scheduled", "B"), event(9, "Scheduled", "A"), event(10, "Started", "B")));

        List<SpoolEntry> pending = new Dispatcher(new SinkRegistry(List.of(a, b)), new Spool(root)).pending();

        assertThat(pending).extracting(e -> e.sinkId() + "/" + e.file().getFileName()).containsExactly(
                "a/0000000000000000009.json", "a/0000000000000000010.json", "a/0000000000000000011.json",
                "b/0000000000000000010.json", "b/0000000000000000011.json");
    }

    @Test
    @DisplayName("the run's first dispatch queues every waiting message, the last run's and its own; later ones what they spooled")
    void firstDispatchQueuesEverythingWaiting() throws IOException {
        Sink a = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
        new Dispatcher(new SinkRegistry(List.of(a)), new Spool(root)).spool(List.of(event(9, "Scheduled", "A")));
        Dispatcher restarted = new Dispatcher(new SinkRegistry(List.of(a)), new Spool(root));

        List<SpoolEntry> outbox = restarted.spool(List.of(event(10, "Started", "A")));
        assertThat(restarted.toQueue(outbox)).extracting(e -> e.file().getFileName().toString())
                .containsExactly("0000000000000000009.json", "0000000000000000010.json");
        List<SpoolEntry> next = restarted.spool(List.of(event(11, "Completed", "A")));
        assertThat(restarted.toQueue(next)).isEqualTo(next).extracting(e -> e.file().getFileName().toString())
                .containsExactly("0000000000000000011.json");
    }

    @Test
    @DisplayName("no sinks: nothing is spooled")
    void noSinks() throws IOException {
        Dispatcher dispatcher = new Dispatcher(new SinkRegistry(List.of()), new Spool(root));

        assertThat(dispatcher.spool(List.of(event(1, "Scheduled", "A")))).isEmpty();
        assertThat(dispatcher.pending()).isEmpty();
        assertThat(files(root)).isEmpty();
    }
}
