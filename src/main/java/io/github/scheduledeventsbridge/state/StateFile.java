package io.github.scheduledeventsbridge.state;

import io.github.scheduledeventsbridge.storage.StateWriteException;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The journal's file, state.json: its layout, replaced atomically on every write (the storage health follows each
 * write), read back at start, or set aside when corrupt.
 */
final class StateFile {

    private static final Logger LOG = LoggerFactory.getLogger(StateFile.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    static final String NAME = "state.json";

    /** Everything the file holds; lastObserved is null until a poll was recorded. */
    record Contents(ImdsDocument document, long nextSeq, List<OutboundEvent> outbox, Instant lastObserved,
                    Set<String> approved) {
        Contents {
            outbox = List.copyOf(outbox);
            approved = Set.copyOf(approved);
        }
    }

    private final Path file;
    private final StorageHealth health;
    private final ImdsDocumentParser parser = new ImdsDocumentParser();

    StateFile(Path stateDir, StorageHealth health) {
        this.file = stateDir.resolve(NAME);
        this.health = health;
    }

    /** Replaces the file, or throws a StateWriteException and leaves the previous one as it was. */
    void write(Contents contents) throws IOException {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("version", 1);
        root.put("nextSeq", contents.nextSeq());
        if (contents.lastObserved() != null) {
            root.put("lastObserved", contents.lastObserved().toString());
        }
        root.set("document", ImdsDocumentParser.toJson(contents.document()));
        ArrayNode pending = root.putArray("outbox");
        for (OutboundEvent event : contents.outbox()) {
            ObjectNode item = pending.addObject();
            item.put("seq", event.seq());
            item.set("event", event.cloudEvent());
        }
        ArrayNode approvedKeys = root.putArray("approved");
        contents.approved().stream().sorted().forEach(approvedKeys::add);
        try {
            AtomicFiles.write(file, MAPPER.writeValueAsBytes(root));
        } catch (IOException e) {
            StateWriteException failure = new StateWriteException(file, e);
            health.failed(StorageHealth.STATE, failure.getMessage());
            throw failure;
        }
        health.succeeded(StorageHealth.STATE);
    }

    /** The contents, or empty when there is no file or it was corrupt (then it is moved aside for inspection). */
    Optional<Contents> read(Clock clock) {
        if (!Files.exists(file)) {
            LOG.info("No state in {}: every event IMDS lists now will be reported once", file.getParent());
            return Optional.empty();
        }
        try {
            JsonNode root = MAPPER.readTree(Files.readAllBytes(file));
            ImdsDocument document = parser.parse(MAPPER.writeValueAsString(root.get("document")));
            List<OutboundEvent> outbox = new ArrayList<>();
            for (JsonNode item : root.path("outbox")) {
                outbox.add(new OutboundEvent(item.path("seq").asLong(), (ObjectNode) item.get("event")));
            }
            Set<String> approved = new HashSet<>();
            root.path("approved").forEach(key -> approved.add(key.asText()));
            String observed = root.path("lastObserved").asText(null);
            Contents contents = new Contents(document, Math.max(root.path("nextSeq").asLong(1), 1), outbox,
                    observed == null ? null : Instant.parse(observed), approved);
            LOG.info("State loaded: incarnation {}, {} event(s), {} transition(s) still to spool",
                    document.incarnation(), document.events().size(), outbox.size());
            return Optional.of(contents);
        } catch (IOException | RuntimeException e) {
            quarantine(clock, e);
            return Optional.empty();
        }
    }

    private void quarantine(Clock clock, Exception cause) {
        Path aside = file.resolveSibling(NAME + ".corrupt-" + clock.millis());
        try {
            AtomicFiles.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("State file " + file + " is corrupt and cannot be moved aside", e);
        }
        LOG.error("State file {} is corrupt ({}); moved to {} and starting without state: every event IMDS "
                + "lists now will be reported again", file, cause.getMessage(), aside);
    }
}
