package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.state.AtomicFiles;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Undelivered messages, one directory per sink, one file per message, named by sequence number so
 * that the directory listing is the delivery order. A file is deleted only after its sink confirmed
 * delivery; storing is idempotent (same sequence, same bytes), so spooling an outbox twice after a
 * crash cannot duplicate a message, and it never replaces a different message.
 */
public final class Spool implements SpoolMXBean {

    private static final Logger LOG = LoggerFactory.getLogger(Spool.class);
    public static final String ENTRY_PROPERTY = "bridgeSpoolEntry";
    /** {@code 0000000000000000042.json}, also as a temporary ({@code .…json.tmp}) or with a suffix. */
    private static final Pattern SEQUENCE_NAME = Pattern.compile("\\.?(\\d{1,19})\\.json.*");

    private final Path root;
    private final Map<String, AtomicLong> depth = new ConcurrentHashMap<>();
    private final Map<String, Instant> lastDelivered = new ConcurrentHashMap<>();
    private final Map<String, Instant> waitingSince = new ConcurrentHashMap<>();
    private final Clock clock;
    /** Threads that force the files of a big document to disk (a thread mostly waits for the disk). */
    static final int FORCERS = 8;
    private java.util.concurrent.ExecutorService forcerPool;

    public Spool(Path root) {
        this(root, Clock.systemUTC());
    }

    public Spool(Path root, Clock clock) {
        this.root = root;
        this.clock = clock;
    }

    /**
     * Stores one message durably: its content is on disk before it gets its name (written to a temporary
     * file, forced, renamed). The new name itself is on disk once the directory is forced
     * ({@link #forceDirectories}). An existing file with the same bytes is the same message spooled again
     * after a crash: kept, and forced (a killed run may not have done so).
     */
    public SpoolEntry store(Sink sink, long seq, byte[] payload) throws IOException {
        return store(sink, seq, null, payload);
    }

    /** {@code eventId} chooses the sink's lane: every message of one event goes through the same one. */
    public SpoolEntry store(Sink sink, long seq, String eventId, byte[] payload) throws IOException {
        Written written = write(sink, seq, eventId, payload);
        commit(written);
        return written.entry();
    }

    /** A message's file, written under a temporary name (null when the same message was spooled already). */
    private record Written(SpoolEntry entry, Path temporary) {
    }

    private Written write(Sink sink, long seq, String eventId, byte[] payload) throws IOException {
        Path dir = directory(sink.id());
        Path file = dir.resolve(String.format(Locale.ROOT, "%019d.json", seq));
        SpoolEntry entry = new SpoolEntry(sink.id(), sink.queueFor(eventId), file);
        if (Files.exists(file)) {
            // The same outbox spooled again after a crash: the same bytes, nothing to write. Anything else
            // would be a sequence number used twice, and overwriting would lose an undelivered message.
            if (!Arrays.equals(Files.readAllBytes(file), payload)) {
                throw new FileAlreadyExistsException(file.toString(), null,
                        "holds another undelivered message with sequence number " + seq + "; not overwritten");
            }
            return new Written(entry, null);
        }
        return new Written(entry, AtomicFiles.writeTemporary(file, payload));
    }

    /** Forces the written content, then names it (or forces the file that was there already). */
    private void commit(Written written) throws IOException {
        SpoolEntry entry = written.entry();
        if (written.temporary() == null) {
            AtomicFiles.force(entry.file());
            return;
        }
        AtomicFiles.commitTemporary(written.temporary(), entry.file());
        if (counter(entry.sinkId()).incrementAndGet() == 1) {
            waitingSince.put(entry.sinkId(), clock.instant());
        }
    }

    /** One message to store (of event {@code eventId}). */
    public record Write(Sink sink, long seq, String eventId, Payload payload) {
    }

    /** A message's bytes, made when it is stored. */
    @FunctionalInterface
    public interface Payload {
        byte[] bytes() throws IOException;
    }

    /**
     * Stores many messages at once, each as {@link #store} does, in two rounds: the calling thread writes every
     * message to its temporary file, one after the other (files created in one directory from several threads,
     * or while other threads force and rename there, only make each other wait in the file system); then the
     * fsync threads force each temporary file and give it its name, several at a time, so that their fsyncs
     * share the disk's flushes. Returns when every message is stored, in the order given, or with the first
     * failure once no fsync thread is working on them any more; the directories still need
     * {@link #forceDirectories}.
     */
    public List<SpoolEntry> storeAll(List<Write> writes) throws IOException {
        if (writes.size() <= 2) {
            List<SpoolEntry> entries = new java.util.ArrayList<>();
            for (Write write : writes) {
                entries.add(store(write.sink(), write.seq(), write.eventId(), write.payload().bytes()));
            }
            return entries;
        }
        List<Written> written = new java.util.ArrayList<>();
        IOException failure = null;
        try {
            for (Write write : writes) {
                written.add(write(write.sink(), write.seq(), write.eventId(), write.payload().bytes()));
            }
        } catch (IOException e) {
            failure = e;
        }
        List<java.util.concurrent.Future<?>> committed = new java.util.ArrayList<>();
        for (Written each : written) {
            committed.add(forcerPool().submit(() -> {
                commit(each);
                return null;
            }));
        }
        boolean interrupted = false;
        for (java.util.concurrent.Future<?> future : committed) {
            while (true) {
                try {
                    future.get();
                    break;
                } catch (java.util.concurrent.ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        return written.stream().map(Written::entry).toList();
    }

    /** Forces the directories of these entries, so that their names are on disk too. */
    public void forceDirectories(List<SpoolEntry> entries) throws IOException {
        for (Path dir : entries.stream().map(e -> e.file().getParent()).distinct().toList()) {
            AtomicFiles.force(dir);
        }
    }

    /**
     * The highest sequence number of any file under a spool root (every sink, and any subdirectory of a
     * sink such as its dead letters), or 0: after a lost state file, numbering resumes above it.
     */
    public static long highestSequence(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root, 3)) {
            return files.map(f -> SEQUENCE_NAME.matcher(f.getFileName().toString()))
                    .filter(Matcher::matches)
                    .mapToLong(m -> parseOrZero(m.group(1)))
                    .max().orElse(0);
        }
    }

    private static long parseOrZero(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException tooLong) {
            return 0;
        }
    }

    /** A few daemon threads, created on the first big document only: idle agents do not pay for them. */
    private synchronized java.util.concurrent.ExecutorService forcerPool() {
        if (forcerPool == null) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            forcerPool = java.util.concurrent.Executors.newFixedThreadPool(FORCERS, r -> {
                Thread t = new Thread(r, "spool-fsync-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return forcerPool;
    }

    /**
     * Pending messages of a sink, oldest first, each for the lane of its event (read from the file when the
     * sink has several lanes).
     */
    public List<SpoolEntry> pending(Sink sink) throws IOException {
        Path dir = directory(sink.id());
        try (Stream<Path> files = Files.list(dir)) {
            List<SpoolEntry> entries = files
                    .filter(f -> f.getFileName().toString().endsWith(".json")
                            && !f.getFileName().toString().startsWith("."))
                    .sorted()
                    .map(f -> new SpoolEntry(sink.id(), sink.lanes() == 1 ? sink.queue() : sink.queueFor(eventIdIn(f)), f))
                    .toList();
            counter(sink.id()).set(entries.size());
            if (!entries.isEmpty()) {
                waitingSince.putIfAbsent(sink.id(), clock.instant());
            }
            return entries;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = new com.fasterxml.jackson.databind.ObjectMapper();

    /** The EventId a spooled CloudEvent is about, or null (unreadable: its lane will dead-letter it). */
    static String eventIdIn(Path file) {
        try {
            return eventIdOf(MAPPER.readTree(file.toFile()));
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    /** The EventId a CloudEvent is about ({@code data.eventId}, else its {@code subject}), or null. */
    public static String eventIdOf(com.fasterxml.jackson.databind.JsonNode cloudEvent) {
        if (cloudEvent == null) {
            return null;
        }
        String eventId = cloudEvent.path("data").path("eventId").asText("");
        return eventId.isBlank() ? cloudEvent.path("subject").asText(null) : eventId;
    }

    /**
     * Route step: the body becomes the spooled bytes, and the entry is kept on the exchange for
     * {@link #delivered}. The body is null when the file is already gone (delivered before a restart).
     */
    public void load(Exchange exchange) throws IOException {
        SpoolEntry entry = exchange.getMessage().getBody(SpoolEntry.class);
        exchange.setProperty(ENTRY_PROPERTY, entry);
        try {
            exchange.getMessage().setBody(Files.readAllBytes(entry.file()));
        } catch (NoSuchFileException gone) {
            LOG.debug("Spool file {} already delivered", entry.file());
            exchange.getMessage().setBody(null);
        }
    }

    /** Route step after the sink confirmed: the message leaves the spool. */
    public void delivered(Exchange exchange) throws IOException {
        SpoolEntry entry = exchange.getProperty(ENTRY_PROPERTY, SpoolEntry.class);
        if (Files.deleteIfExists(entry.file())) {
            lastDelivered.put(entry.sinkId(), clock.instant());
            if (counter(entry.sinkId()).decrementAndGet() <= 0) {
                waitingSince.remove(entry.sinkId());
            }
        }
    }

    /** The entry left the spool without being delivered (dead-lettered): it no longer counts as waiting. */
    void removed(SpoolEntry entry) {
        if (counter(entry.sinkId()).decrementAndGet() <= 0) {
            waitingSince.remove(entry.sinkId());
        }
    }

    /** Retries end only when the agent stops: the message is not lost, it waits on disk. */
    public void keptForNextStart(Exchange exchange) {
        SpoolEntry entry = exchange.getProperty(ENTRY_PROPERTY, SpoolEntry.class);
        // One line per sink at stop (OutageLog), not one per message.
        LOG.debug("Stopping while {} was undelivered to {}: kept in the spool for the next start",
                entry == null ? "a message" : entry.file().getFileName(), entry == null ? "its sink" : entry.sinkId());
    }

    public long depth(String sinkId) {
        return counter(sinkId).get();
    }

    public Path root() {
        return root;
    }

    private volatile java.util.function.Function<String, String> names = java.util.function.Function.identity();

    /** How {@link #getDepthBySink} names sinks (SinkRegistry#label: {@code webhook hooks.example.com}). */
    public void nameSinks(java.util.function.Function<String, String> names) {
        this.names = names;
    }

    /** Keyed by the sink's readable name, e.g. {@code webhook hooks.example.com}, not its hash. */
    @Override
    public Map<String, Long> getDepthBySink() {
        Map<String, Long> copy = new java.util.TreeMap<>();
        depth.forEach((sink, count) -> copy.merge(names.apply(sink), count.get(), Long::sum));
        return copy;
    }

    @Override
    public long getTotalDepth() {
        return totalDepth();
    }

    public long totalDepth() {
        return depth.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** When this sink last confirmed a delivery, or null. */
    public Instant lastDelivered(String sinkId) {
        return lastDelivered.get(sinkId);
    }

    /** Since when this sink has had something waiting, or null when its spool is empty. */
    public Instant waitingSince(String sinkId) {
        return waitingSince.get(sinkId);
    }

    public Map<String, AtomicLong> depths() {
        return depth;
    }

    private AtomicLong counter(String sinkId) {
        return depth.computeIfAbsent(sinkId, id -> new AtomicLong());
    }

    private Path directory(String sinkId) throws IOException {
        Path dir = root.resolve(sinkId);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create spool directory " + dir, e);
        }
        return dir;
    }
}
