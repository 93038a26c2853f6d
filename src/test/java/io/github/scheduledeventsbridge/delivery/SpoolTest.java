package io.github.scheduledeventsbridge.delivery;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class SpoolTest {

    @TempDir
    Path root;

    private final Sink sinkA = new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true);
    private final Sink sinkB = new Sink("b", "desc", "tpl", Sink.Target.NONE, e -> true);
    private CamelContext camel;

    @AfterEach
    void closeCamel() throws Exception {
        if (camel != null) {
            camel.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("store writes <19-digit seq>.json in the sink's directory, with the payload")
    void storeWritesFile() throws IOException {
        Spool spool = new Spool(root);

        SpoolEntry entry = spool.store(sinkA, 42, bytes("{\"x\":1}"));

        Path expected = root.resolve("a").resolve("0000000000000000042.json");
        assertThat(entry.file()).isEqualTo(expected);
        assertThat(entry.sinkId()).isEqualTo("a");
        assertThat(entry.queue()).isEqualTo(sinkA.queue()).isEqualTo("seda:sink-a");
        assertThat(expected.getFileName().toString()).hasSize(19 + ".json".length());
        assertThat(Files.readString(expected)).isEqualTo("{\"x\":1}");
        assertThat(spool.depth("a")).isEqualTo(1);
        try (Stream<Path> files = Files.list(root.resolve("a"))) {
            assertThat(files).as("no temporary file left").containsExactly(expected);
        }
    }

    @Test
    @DisplayName("file names use ASCII digits whatever the default locale (e.g. ar-SA), so a restart finds the same file")
    void fileNameIndependentOfLocale() throws IOException {
        Locale before = Locale.getDefault();
        Locale beforeFormat = Locale.getDefault(Locale.Category.FORMAT);
        Locale beforeDisplay = Locale.getDefault(Locale.Category.DISPLAY);
        SpoolEntry entry;
        try {
            Locale.setDefault(Locale.forLanguageTag("ar-SA"));
            entry = new Spool(root).store(sinkA, 42, bytes("{}"));
        } finally {
            Locale.setDefault(before);
            Locale.setDefault(Locale.Category.FORMAT, beforeFormat);
            Locale.setDefault(Locale.Category.DISPLAY, beforeDisplay);
        }

        assertThat(entry.file().getFileName().toString()).isEqualTo("0000000000000000042.json");
        Spool restarted = new Spool(root);
        restarted.store(sinkA, 42, bytes("{}"));
        assertThat(restarted.pending(sinkA)).as("the same seq is one message, not two").hasSize(1);
    }

    @Test
    @DisplayName("store is idempotent for the same seq: one file, depth stays 1")
    void storeIdempotent() throws IOException {
        Spool spool = new Spool(root);

        SpoolEntry first = spool.store(sinkA, 7, bytes("{\"x\":1}"));
        SpoolEntry second = spool.store(sinkA, 7, bytes("{\"x\":1}"));

        assertThat(second).isEqualTo(first);
        assertThat(spool.depth("a")).isEqualTo(1);
        assertThat(spool.pending(sinkA)).containsExactly(first);
    }

    @Test
    @DisplayName("store never replaces a different undelivered message that has the same seq")
    void storeNeverOverwritesAnotherMessage() throws IOException {
        Spool spool = new Spool(root);
        SpoolEntry first = spool.store(sinkA, 1, bytes("{\"undelivered\":true}"));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> spool.store(sinkA, 1, bytes("{\"newer\":true}")))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class)
                .hasMessageContaining("sequence number 1");

        assertThat(Files.readString(first.file())).isEqualTo("{\"undelivered\":true}");
        assertThat(spool.depth("a")).isEqualTo(1);
    }

    @Test
    @DisplayName("a file that a crash or power loss cut short before it was forced (empty, or not JSON) is written "
            + "again when its message is spooled again")
    void fileCutShortIsWrittenAgain() throws IOException {
        Files.createDirectories(root.resolve("a"));
        Files.writeString(root.resolve("a").resolve("0000000000000000001.json"), "");
        Files.writeString(root.resolve("a").resolve("0000000000000000002.json"), "{\"specversion\":\"1.0\",\"id\":\"a");

        Spool spool = new Spool(root);
        SpoolEntry empty = spool.store(sinkA, 1, bytes("{\"id\":\"one\"}"));
        SpoolEntry torn = spool.store(sinkA, 2, bytes("{\"specversion\":\"1.0\",\"id\":\"abc\"}"));

        assertThat(Files.readString(empty.file())).isEqualTo("{\"id\":\"one\"}");
        assertThat(Files.readString(torn.file())).isEqualTo("{\"specversion\":\"1.0\",\"id\":\"abc\"}");
        assertThat(new Spool(root).pending(sinkA)).containsExactly(empty, torn);
    }

    @Test
    @DisplayName("highestSequence covers every sink and their subdirectories (dead letters), temporaries included")
    void highestSequenceScansEverySink() throws IOException {
        assertThat(Spool.highestSequence(root.resolve("missing"))).isZero();
        Spool spool = new Spool(root);
        spool.store(sinkA, 12, bytes("{}"));
        spool.store(sinkB, 7, bytes("{}"));
        Path deadLetters = Files.createDirectories(root.resolve("b").resolve("dead-letter"));
        Files.writeString(deadLetters.resolve("0000000000000000040.json"), "{}");
        Files.writeString(root.resolve("a").resolve(".0000000000000000041.json.tmp"), "{");
        Files.writeString(root.resolve("a").resolve("notes.txt"), "999999");

        assertThat(Spool.highestSequence(root)).isEqualTo(41);
    }

    @Test
    @DisplayName("pending lists oldest first by seq, not by text, across more than 10 entries")
    void pendingSortedBySeq() throws IOException {
        Spool spool = new Spool(root);
        long[] seqs = {100, 9, 10, 1, 11, 2, 1000, 99, 3, 20, 12, 101};
        for (long seq : seqs) {
            spool.store(sinkA, seq, bytes("{\"seq\":" + seq + "}"));
        }

        List<SpoolEntry> pending = spool.pending(sinkA);

        assertThat(pending).extracting(e -> Files.readString(e.file())).containsExactly(
                "{\"seq\":1}", "{\"seq\":2}", "{\"seq\":3}", "{\"seq\":9}", "{\"seq\":10}", "{\"seq\":11}",
                "{\"seq\":12}", "{\"seq\":20}", "{\"seq\":99}", "{\"seq\":100}", "{\"seq\":101}", "{\"seq\":1000}");
        assertThat(spool.depth("a")).isEqualTo(seqs.length);
    }

    @Test
    @DisplayName("with several lanes, a message is queued for its event's lane when stored and again after a restart")
    void pendingKeepsEachEventInItsLane() throws IOException {
        Sink lanes = new Sink("w", "desc", "tpl", Sink.Target.NONE, e -> true, false, 4);
        Spool spool = new Spool(root);
        java.util.Map<String, String> stored = new java.util.HashMap<>();
        for (int i = 0; i < 40; i++) {
            String eventId = String.format("AAAAAAAA-0000-0000-0000-%012d", i % 10);
            SpoolEntry entry = spool.store(lanes, i + 1, eventId,
                    bytes("{\"subject\":\"x\",\"data\":{\"eventId\":\"" + eventId + "\"}}"));
            assertThat(entry.queue()).isEqualTo(lanes.queueFor(eventId));
            stored.put(entry.file().getFileName().toString(), entry.queue());
        }
        Files.writeString(root.resolve("w").resolve("0000000000000000100.json"), "{\"subject\":\"BBBBBBBB-0000\"}");
        Files.writeString(root.resolve("w").resolve("0000000000000000101.json"), "not json");

        List<SpoolEntry> pending = new Spool(root).pending(lanes);

        assertThat(pending).hasSize(42);
        for (SpoolEntry entry : pending.subList(0, 40)) {
            assertThat(entry.queue()).isEqualTo(stored.get(entry.file().getFileName().toString()));
        }
        assertThat(pending.get(40).queue()).as("no data.eventId: the subject").isEqualTo(lanes.queueFor("BBBBBBBB-0000"));
        assertThat(pending.get(41).queue()).as("unreadable: the first lane, which dead-letters it").isEqualTo("seda:sink-w");
    }

    @Test
    @DisplayName("depth counts per sink; pending of an unused sink is empty")
    void depthPerSink() throws IOException {
        Spool spool = new Spool(root);
        spool.store(sinkA, 1, bytes("1"));
        spool.store(sinkA, 2, bytes("2"));
        spool.store(sinkB, 2, bytes("2"));

        assertThat(spool.depth("a")).isEqualTo(2);
        assertThat(spool.depth("b")).isEqualTo(1);
        assertThat(spool.depth("nobody")).isZero();
        assertThat(spool.pending(new Sink("c", "desc", "tpl", Sink.Target.NONE, e -> true))).isEmpty();
    }

    @Test
    @DisplayName("a new Spool on the same directory (restart) finds what waits, and pending() sets the depth")
    void restartFindsPending() throws IOException {
        Spool before = new Spool(root);
        before.store(sinkA, 5, bytes("5"));
        before.store(sinkA, 6, bytes("6"));

        Spool after = new Spool(root);

        assertThat(after.pending(sinkA)).extracting(SpoolEntry::file).containsExactly(
                root.resolve("a/0000000000000000005.json"), root.resolve("a/0000000000000000006.json"));
        assertThat(after.depth("a")).isEqualTo(2);
    }

    @Test
    @DisplayName("pending ignores temporary and non-json files")
    void pendingIgnoresOtherFiles() throws IOException {
        Spool spool = new Spool(root);
        SpoolEntry real = spool.store(sinkA, 1, bytes("1"));
        Files.writeString(root.resolve("a/.0000000000000000002.json.tmp"), "half");
        Files.writeString(root.resolve("a/.hidden.json"), "x");
        Files.writeString(root.resolve("a/notes.txt"), "x");

        assertThat(spool.pending(sinkA)).containsExactly(real);
    }

    @Test
    @DisplayName("load puts the spooled bytes in the body; delivered deletes the file and lowers the depth")
    void loadAndDelivered() throws IOException {
        Spool spool = new Spool(root);
        SpoolEntry entry = spool.store(sinkA, 3, bytes("{\"hello\":true}"));
        camel = new DefaultCamelContext();
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(entry);

        spool.load(exchange);

        assertThat(exchange.getMessage().getBody(byte[].class)).isEqualTo(bytes("{\"hello\":true}"));
        assertThat(exchange.getProperty(Spool.ENTRY_PROPERTY)).isEqualTo(entry);

        spool.delivered(exchange.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class));

        assertThat(entry.file()).doesNotExist();
        assertThat(spool.depth("a")).isZero();
        assertThat(spool.pending(sinkA)).isEmpty();

        spool.delivered(exchange.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class));
        assertThat(spool.depth("a")).as("a second confirmation does not go negative").isZero();
    }

    @Test
    @DisplayName("load of a file already gone gives a null body")
    void loadMissingFile() throws IOException {
        Spool spool = new Spool(root);
        camel = new DefaultCamelContext();
        Exchange exchange = new DefaultExchange(camel);
        SpoolEntry gone = new SpoolEntry("a", "seda:sink-a", root.resolve("a/0000000000000000009.json"));
        exchange.getMessage().setBody(gone);

        spool.load(exchange);

        assertThat(exchange.getMessage().getBody()).isNull();
        assertThat(exchange.getProperty(Spool.ENTRY_PROPERTY)).isEqualTo(gone);
    }
}
