package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.storage.AtomicFiles;
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
 * Undelivered messages, one directory per sink, one file per message ({@link SpoolDocument}: one file for many
 * messages of one document), named by sequence number so that the directory listing is the delivery order. A
 * file is deleted only after its sink confirmed delivery; storing is idempotent (same sequence, same bytes), so spooling an outbox twice after a
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
    private final SpoolForcer forcer = new SpoolForcer();
    private final WaitingDocuments documents = new WaitingDocuments();
    /** Delivered files the disk would not let go of yet. */
    private final SpoolCleanup cleanup = new SpoolCleanup();

    public Spool(Path root) {
        this(root, Clock.systemUTC());
    }

    public Spool(Path root, Clock clock) {
        this.root = root;
        this.clock = clock;
    }

    /**
     * Stores one message durably: written under its name ({@link #write}), then forced with its directory
     * ({@link #force}).
     */
    public SpoolEntry store(Sink sink, long seq, byte[] payload) throws IOException {
        return store(sink, seq, null, payload);
    }

    /** {@code eventId} chooses the sink's lane: every message of one event goes through the same one. */
    public SpoolEntry store(Sink sink, long seq, String eventId, byte[] payload) throws IOException {
        SpoolEntry entry = write(sink, seq, eventId, payload);
        force(List.of(entry));
        return entry;
    }

    /**
     * Writes one message (to a temporary file, then renamed), NOT forced to disk: the caller's own durable copy (the journal's
     * outbox) must stay until {@link #force} has returned, so that a crash or power loss in between means
     * spooling the same message again. Readers may take the file at once: a file that power loss cut short
     * is never read, since the outbox is spooled again first on start. Hence an existing file: with the same
     * bytes it is this message spooled again (kept); not JSON at all, it is this message cut short (written
     * again); anything else would be a sequence number used twice, and overwriting would lose an undelivered
     * message.
     */
    public SpoolEntry write(Sink sink, long seq, String eventId, byte[] payload) throws IOException {
        Path file = directory(sink.id()).resolve(String.format(Locale.ROOT, "%019d.json", seq));
        SpoolEntry entry = new SpoolEntry(sink.id(), sink.queueFor(eventId), file);
        try {
            AtomicFiles.writeNew(file, payload, false);
        } catch (FileAlreadyExistsException existing) {
            byte[] there = Files.readAllBytes(file);
            if (Arrays.equals(there, payload)) {
                return entry;
            }
            if (isJson(there)) {
                throw new FileAlreadyExistsException(file.toString(), null,
                        "holds another undelivered message with sequence number " + seq + "; not overwritten");
            }
            LOG.info("Spool file {} was cut short by a crash before it was on disk: written again", file);
            AtomicFiles.write(file, payload, false);
            return entry;
        }
        if (counter(sink.id()).incrementAndGet() == 1) {
            waitingSince.put(sink.id(), clock.instant());
        }
        return entry;
    }

    /**
     * Writes many messages of one sink as one spool document ({@link SpoolDocument}), named after the last one's
     * sequence number (so the directory listing stays the delivery order, and numbering after a lost state file
     * resumes above it), NOT forced to disk, like {@link #write}: one entry per message, each for its event's
     * lane. An existing document with the same bytes is this one spooled again; one a crash cut short is written
     * again; any other is never overwritten.
     */
    public List<SpoolEntry> writeDocument(Sink sink, long lastSeq, List<String> eventIds, List<byte[]> payloads)
            throws IOException {
        Path file = directory(sink.id()).resolve(String.format(Locale.ROOT, "%019d", lastSeq) + SpoolDocument.SUFFIX);
        byte[] content = SpoolDocument.content(payloads);
        boolean created = true;
        try {
            AtomicFiles.writeNew(file, content, false);
        } catch (FileAlreadyExistsException existing) {
            byte[] there = Files.readAllBytes(file);
            created = false;
            if (!Arrays.equals(there, content)) {
                if (SpoolDocument.complete(there) && !SpoolDocument.partOf(there, payloads)) {
                    throw new FileAlreadyExistsException(file.toString(), null,
                            "holds other undelivered messages with sequence number " + lastSeq + "; not overwritten");
                }
                LOG.info("Spool file {} holds part of this document (cut short by a crash, or left by a stop): written "
                        + "whole again", file);
                AtomicFiles.write(file, content, false);
            }
        }
        if (created && counter(sink.id()).getAndAdd(payloads.size()) == 0) {
            waitingSince.put(sink.id(), clock.instant());
        }
        List<SpoolEntry> entries = SpoolDocument.written(sink, file, eventIds, payloads);
        documents.add(entries);
        return entries;
    }

    private static boolean isJson(byte[] content) {
        try {
            return content.length > 0 && MAPPER.readTree(content) != null;
        } catch (IOException notJson) {
            return false;
        }
    }

    /**
     * Forces written messages to disk, then their directories (their names): see {@link SpoolForcer}. A spool
     * document's messages share one file.
     */
    public void force(List<SpoolEntry> entries) throws IOException {
        forcer.force(entries.stream().map(SpoolEntry::file).distinct().toList());
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

    /**
     * Pending messages of a sink, oldest first, each for the lane of its event (read from the file when the
     * sink has several lanes); a spool document's messages in its order, each with its bytes.
     */
    public List<SpoolEntry> pending(Sink sink) throws IOException {
        Path dir = directory(sink.id());
        try (Stream<Path> files = Files.list(dir)) {
            List<SpoolEntry> entries = new java.util.ArrayList<>();
            for (Path f : files.filter(Spool::isSpooled).sorted().toList()) {
                if (f.getFileName().toString().endsWith(SpoolDocument.SUFFIX)) {
                    List<SpoolEntry> document = SpoolDocument.replayed(sink, f);
                    documents.add(document);
                    entries.addAll(document);
                } else {
                    entries.add(new SpoolEntry(sink.id(), sink.lanes() == 1 ? sink.queue() : sink.queueFor(EventIds.in(f)), f));
                }
            }
            counter(sink.id()).set(entries.size());
            if (!entries.isEmpty()) {
                waitingSince.putIfAbsent(sink.id(), clock.instant());
            }
            return entries;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    /** A message file or a spool document (not a temporary file, not the dead-letter directory). */
    private static boolean isSpooled(Path file) {
        String name = file.getFileName().toString();
        return !name.startsWith(".") && (name.endsWith(".json") || name.endsWith(SpoolDocument.SUFFIX));
    }

    /**
     * Route step: the body becomes the spooled bytes, and the entry is kept on the exchange for
     * the delivery outcome. The body is null when the file is already gone (delivered before a restart).
     */
    public void load(Exchange exchange) throws IOException {
        SpoolEntry entry = exchange.getMessage().getBody(SpoolEntry.class);
        exchange.setProperty(ENTRY_PROPERTY, entry);
        try {
            exchange.getMessage().setBody(entry.document() != null ? SpoolDocument.message(entry)
                    : Files.readAllBytes(entry.file()));
        } catch (NoSuchFileException gone) {
            LOG.debug("Spool file {} already delivered (or its document rewritten at stop)", entry.file());
            exchange.getMessage().setBody(null);
        }
    }

    /**
     * After the sink confirmed ({@code DeliveryOutcome}): the message leaves the spool. Its file is deleted, or, when the disk cannot
     * be written just now, deleted as soon as it can be ({@link SpoolCleanup}): either way it no longer waits.
     */
    public void delivered(SpoolEntry entry) {
        if (entry.document() != null) {
            lastDelivered.put(entry.sinkId(), clock.instant());
            removed(entry);
        } else if (cleanup.delete(entry.file())) {
            lastDelivered.put(entry.sinkId(), clock.instant());
            if (counter(entry.sinkId()).decrementAndGet() <= 0) {
                waitingSince.remove(entry.sinkId());
            }
        }
    }

    /** The entry left the spool without being delivered (dead-lettered): it no longer counts as waiting. */
    void removed(SpoolEntry entry) {
        if (entry.document() != null) {
            int waiting = entry.document().settle(entry.index());
            if (waiting == SpoolDocument.ALREADY_SETTLED) {
                return;
            }
            if (waiting == 0) {
                documents.remove(entry.document());
                cleanup.delete(entry.document().file());
            }
        }
        if (counter(entry.sinkId()).decrementAndGet() <= 0) {
            waitingSince.remove(entry.sinkId());
        }
    }

    /**
     * Once the routes stopped (a graceful stop): each spool document keeps only its messages still waiting (see
     * {@link WaitingDocuments}), so the next start does not send the delivered ones again; delivered files that
     * could not be deleted are named in the log (they are sent again).
     */
    public void keepOnlyWaitingDocuments() {
        documents.keepOnlyWaiting();
        cleanup.stop();
    }

    /** Retries end only when the agent stops: the message is not lost, it waits on disk. */
    public void keptForNextStart(SpoolEntry entry) {
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

    /** Sink directories known to exist, with their names on disk. */
    private final java.util.Set<String> directories = ConcurrentHashMap.newKeySet();

    private Path directory(String sinkId) throws IOException {
        Path dir = root.resolve(sinkId);
        // Checked every time: a directory deleted while the agent runs is made (and forced) again.
        if (directories.contains(sinkId) && Files.isDirectory(dir)) {
            return dir;
        }
        try {
            if (!Files.isDirectory(dir)) {
                AtomicFiles.createDirectories(dir);
                // The new directory's name (and the spool root's) must be on disk before any file in it counts as spooled.
                AtomicFiles.force(root);
                if (root.getParent() != null) {
                    AtomicFiles.force(root.getParent());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create spool directory " + dir, e);
        }
        directories.add(sinkId);
        return dir;
    }
}
