package io.github.scheduledeventsbridge.approvalqueue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The final outcome of every queue message the agent decided, by message id, kept in
 * {@code approval-queue-outcomes.json} in the state directory (replaced atomically and forced to disk before the
 * message is deleted), for as long as the message could come back:
 * <ul>
 *   <li>a message whose delete failed after it was decided is deleted when it comes back, never decided again
 *       (so never approved twice);</li>
 *   <li>a valid signature already decided under another message id is a replay;</li>
 *   <li>a message that ended in a transient failure (IMDS unreachable) has no entry: it is decided when it comes back.</li>
 * </ul>
 * An entry goes once the message has expired on the queue and its signature is outside any insertion window.
 * Bounded: past {@code capacity} entries the oldest goes (a message that old was deleted long ago, or its delete
 * failed {@code capacity} decisions ago). A file that cannot be read is not trusted to be empty: nothing is received
 * from the queue (the rest of the agent runs on) until an operator has looked at it ({@link #unreadable()}).
 */
public final class QueueOutcomes {

    public static final String FILE_NAME = "approval-queue-outcomes.json";
    private static final Logger LOG = LoggerFactory.getLogger(QueueOutcomes.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A decided message: its outcome (approved, or the refusal), its signature if it had a valid one, until when it matters. */
    public record Decided(String outcome, String signature, Instant keepUntil) {
    }

    private final Path file;
    private final int capacity;
    private final Clock clock;
    private final LinkedHashMap<String, Decided> byMessage = new LinkedHashMap<>();
    private final Map<String, String> bySignature = new LinkedHashMap<>();
    private String unreadable;

    public QueueOutcomes(Path stateDir, int capacity, Clock clock) {
        this.file = stateDir == null ? null : stateDir.resolve(FILE_NAME);
        this.capacity = capacity;
        this.clock = clock;
        load();
    }

    /** Why the file could not be read, or null: while it is set nothing may be received. */
    public String unreadable() {
        return unreadable;
    }

    public synchronized Optional<Decided> decided(String messageId) {
        return Optional.ofNullable(byMessage.get(messageId));
    }

    /** The other message id a valid signature was decided under, if any. */
    public synchronized Optional<String> signatureDecidedUnder(String signature, String messageId) {
        String other = bySignature.get(signature);
        return other == null || other.equals(messageId) ? Optional.empty() : Optional.of(other);
    }

    /** Records a final outcome on disk; an IOException means it is not recorded and the message must stay. */
    public synchronized void record(String messageId, String outcome, String signature, Instant keepUntil) throws IOException {
        evict();
        Decided before = byMessage.put(messageId, new Decided(outcome, signature, keepUntil));
        if (signature != null) {
            bySignature.putIfAbsent(signature, messageId);
        }
        try {
            save();
        } catch (IOException e) {
            if (before == null) {
                byMessage.remove(messageId);
            } else {
                byMessage.put(messageId, before);
            }
            if (signature != null && messageId.equals(bySignature.get(signature))) {
                bySignature.remove(signature);
            }
            throw e;
        }
    }

    public synchronized int size() {
        return byMessage.size();
    }

    private void evict() {
        Instant now = clock.instant();
        Iterator<Map.Entry<String, Decided>> entries = byMessage.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<String, Decided> entry = entries.next();
            if (now.isAfter(entry.getValue().keepUntil()) || byMessage.size() >= capacity) {
                entries.remove();
                if (entry.getValue().signature() != null) {
                    bySignature.remove(entry.getValue().signature(), entry.getKey());
                }
            }
        }
    }

    private void save() throws IOException {
        if (file == null) {
            return;
        }
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode decided = root.putArray("decided");
        byMessage.forEach((id, d) -> {
            ObjectNode entry = decided.addObject().put("messageId", id).put("outcome", d.outcome())
                    .put("keepUntil", d.keepUntil().toString());
            if (d.signature() != null) {
                entry.put("signature", d.signature());
            }
        });
        AtomicFiles.write(file, MAPPER.writeValueAsBytes(root));
    }

    private void load() {
        if (file == null || !Files.exists(file)) {
            return;
        }
        try {
            JsonNode root = MAPPER.readTree(Files.readAllBytes(file));
            for (JsonNode entry : root.path("decided")) {
                String id = entry.path("messageId").asText("");
                if (id.isEmpty()) {
                    continue;
                }
                String signature = entry.hasNonNull("signature") ? entry.get("signature").asText() : null;
                byMessage.put(id, new Decided(entry.path("outcome").asText("?"), signature,
                        Instant.parse(entry.path("keepUntil").asText())));
                if (signature != null) {
                    bySignature.putIfAbsent(signature, id);
                }
            }
        } catch (IOException | RuntimeException e) {
            byMessage.clear();
            bySignature.clear();
            unreadable = "Cannot read " + file + " (" + e.getClass().getSimpleName() + "): the queue's decided messages "
                    + "are unknown, so one could be approved twice; nothing is received from the queue. Move the file "
                    + "aside once the messages on the queue have been looked at, and restart";
            LOG.error(unreadable);
        }
    }
}
