package io.github.scheduledeventsbridge.approvalqueue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Queue messages delivered {@code max-dequeue} times without a final outcome: deleted from the queue (no second
 * queue, no extra role) and kept here, {@code approval-queue/dead-letter/<time>-<messageId>.json}, with the reason,
 * for an operator. At most {@value #MAX_FILES} are kept, the oldest going first, each at most
 * {@value #MAX_TEXT_CHARS} characters of the message.
 */
public final class QueueDeadLetters {

    static final int MAX_FILES = 100;
    static final int MAX_TEXT_CHARS = 96 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(QueueDeadLetters.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path directory;
    private final Clock clock;

    public QueueDeadLetters(Path stateDir, Clock clock) {
        this.directory = stateDir.resolve("approval-queue").resolve("dead-letter");
        this.clock = clock;
    }

    public Path directory() {
        return directory;
    }

    /** Keeps the message; an IOException means it is not kept, and the message must stay on the queue. */
    public void keep(StorageQueue.Message message, String reason) throws IOException {
        AtomicFiles.createDirectories(directory);
        String text = message.text() == null ? "" : message.text();
        ObjectNode letter = MAPPER.createObjectNode().put("messageId", message.id())
                .put("insertionTime", message.insertionTime().toString()).put("dequeueCount", message.dequeueCount())
                .put("deadLettered", clock.instant().toString()).put("reason", reason)
                .put("text", text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text)
                .put("truncated", text.length() > MAX_TEXT_CHARS);
        String name = clock.millis() + "-" + message.id().replaceAll("[^A-Za-z0-9-]", "_") + ".json";
        AtomicFiles.write(directory.resolve(name), MAPPER.writeValueAsBytes(letter));
        trim();
    }

    public List<Path> letters() throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json"))
                    .sorted(Comparator.comparing(Path::getFileName)).toList();
        }
    }

    private void trim() throws IOException {
        List<Path> letters = letters();
        for (int i = 0; i < letters.size() - MAX_FILES; i++) {
            AtomicFiles.deleteIfExists(letters.get(i));
            LOG.warn("Approval queue dead letters: {} removed, over {} kept", letters.get(i).getFileName(), MAX_FILES);
        }
    }
}
