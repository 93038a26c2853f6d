package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.command.ProcessIdentity;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@code actions.json}: every remembered action at one moment, and the generation that {@link ActionLog}'s steps build
 * on; replaced atomically. A file from before the log existed has no generation: 0.
 */
final class ActionSnapshot {

    private static final Logger LOG = LoggerFactory.getLogger(ActionState.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    static final String FILE = "actions.json";

    record Loaded(long generation, long bytes, List<ActionState.Entry> entries) {
    }

    private ActionSnapshot() {
    }

    /** What the file holds; none when there is none; a corrupt one is moved aside (any log on top is taken). */
    static Loaded read(Path file) {
        if (!Files.exists(file)) {
            return new Loaded(0, 0, List.of());
        }
        try {
            byte[] bytes = Files.readAllBytes(file);
            JsonNode root = MAPPER.readTree(bytes);
            List<ActionState.Entry> entries = new ArrayList<>();
            for (JsonNode node : root.path("actions")) {
                entries.add(new ActionState.Entry(node.path("action").asText(), node.path("eventKey").asText(),
                        (ObjectNode) node.get("input"), node.path("status").asText(),
                        node.hasNonNull("result") ? (ObjectNode) node.get("result") : null,
                        node.path("reported").asBoolean(), node.path("approvalPending").asBoolean(),
                        ProcessIdentity.readFrom(node)));
            }
            return new Loaded(root.path("generation").asLong(0), bytes.length, entries);
        } catch (AccessDeniedException e) {
            // Not corrupt, only unreadable for this user: moving it aside would run every action again.
            throw new BadConfigurationException("bridge.state.dir",
                    file + " cannot be read by this user; fix its owner or mode, it is not moved aside");
        } catch (IOException | RuntimeException e) {
            Path aside = file.resolveSibling(FILE + ".corrupt-" + System.currentTimeMillis());
            try {
                AtomicFiles.move(file, aside);
            } catch (IOException moveFailed) {
                throw new UncheckedIOException("Cannot move the corrupt " + file + " aside", moveFailed);
            }
            LOG.error("{} is corrupt ({}); moved to {}: actions of events still listed may run again", file,
                    e.getMessage(), aside);
            return new Loaded(ActionLog.ANY_GENERATION, 0, List.of());
        }
    }

    /** Replaces the file, forced to disk; returns its size. */
    static long write(Path file, long generation, Collection<ActionState.Entry> entries) throws IOException {
        ObjectNode root = MAPPER.createObjectNode().put("version", 1).put("generation", generation);
        var all = root.putArray("actions");
        for (ActionState.Entry e : entries) {
            ObjectNode node = all.addObject();
            node.put("action", e.action());
            node.put("eventKey", e.eventKey());
            node.put("status", e.status());
            node.put("reported", e.reported());
            node.put("approvalPending", e.approvalPending());
            if (e.process() != null) {
                e.process().writeTo(node);
            }
            node.set("input", e.input());
            if (e.result() != null) {
                node.set("result", e.result());
            }
        }
        byte[] bytes = MAPPER.writeValueAsBytes(root);
        AtomicFiles.write(file, bytes);
        return bytes.length;
    }
}
