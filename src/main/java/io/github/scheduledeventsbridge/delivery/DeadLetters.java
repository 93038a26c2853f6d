package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Messages no receiver will take: moved from {@code spool/<sink>/} to {@code spool/<sink>/dead-letter/}, with
 * a {@code .reason.txt} beside each saying why, so the lane moves on and nothing is deleted. Moving a file back
 * into {@code spool/<sink>/} and restarting the agent sends it again.
 */
public final class DeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
    public static final String DIRECTORY = "dead-letter";

    private final Spool spool;
    private final Clock clock;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    public DeadLetters(Spool spool, Clock clock) {
        this.spool = spool;
        this.clock = clock;
    }

    /** Step of the sink-delivery error handling once a refused message's time is up. */
    public void moveToDeadLetter(@ExchangeProperty(Spool.ENTRY_PROPERTY) SpoolEntry entry,
                                 @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Throwable failure) throws IOException {
        Path file = entry.file();
        Path directory = file.getParent().resolve(DIRECTORY);
        AtomicFiles.createDirectories(directory);
        Path target;
        if (entry.document() != null) {
            // One message of a spool document: a file of its own here (<document>.jsonl.<line>.json), on
            // disk before the document may go.
            target = directory.resolve(file.getFileName() + "." + entry.index() + ".json");
            byte[] message = SpoolDocument.message(entry);
            // A stop that kept only the waiting lines (SpoolDocument#keepOnlyWaiting) numbered them again: the
            // dead letter of another line of this document may have the name already.
            for (int n = 2; Files.exists(target) && !java.util.Arrays.equals(Files.readAllBytes(target), message); n++) {
                target = directory.resolve(file.getFileName() + "." + entry.index() + "-" + n + ".json");
            }
            AtomicFiles.write(target, message, true);
        } else {
            target = directory.resolve(file.getFileName());
            try {
                AtomicFiles.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (NoSuchFileException gone) {
                return;
            }
            // The moved file (perhaps not yet forced: the spool forces a new document's files while lanes already
            // send them) before the spool forgets it: nothing the receiver did not take is lost.
            AtomicFiles.force(target);
        }
        AtomicFiles.force(directory);
        AtomicFiles.force(file.getParent());
        String reason = failure == null ? "refused" : oneLine(failure.getMessage());
        String name = target.getFileName().toString();
        AtomicFiles.write(directory.resolve(name.substring(0, name.length() - ".json".length()) + ".reason.txt"),
                (clock.instant() + " " + reason + "\n").getBytes(StandardCharsets.UTF_8), true);
        spool.removed(entry);
        counter(entry.sinkId()).incrementAndGet();
        LOG.error("Dead letter: sink {} did not accept {} ({}). Moved to {}; the sink goes on with the next message. "
                + "To send it again, move it back into {} and restart the agent", entry.sinkId(), name, reason, target,
                file.getParent());
    }

    /** At start: what earlier runs dead-lettered for this sink. */
    public void countExisting(String sinkId, Path sinkDirectory) throws IOException {
        Path directory = sinkDirectory.resolve(DIRECTORY);
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> files = Files.list(directory)) {
            counter(sinkId).set(files.filter(f -> f.getFileName().toString().endsWith(".json")).count());
        }
    }

    public long count(String sinkId) {
        AtomicLong count = counts.get(sinkId);
        return count == null ? 0 : count.get();
    }

    public Map<String, Long> bySink() {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((sink, count) -> copy.put(sink, count.get()));
        return copy;
    }

    private AtomicLong counter(String sinkId) {
        return counts.computeIfAbsent(sinkId, id -> new AtomicLong());
    }

    /** A reason on one line, what a peer said in it redacted (it may quote credentials). */
    private static String oneLine(String text) {
        return text == null ? "refused" : Redaction.peerText(text.replaceAll("\\s+", " ").trim());
    }
}
