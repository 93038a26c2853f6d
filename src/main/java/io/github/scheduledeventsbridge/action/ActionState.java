package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.state.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which actions were asked for, finished and reported, per event ({@code actions.json} beside state.json,
 * replaced atomically at each step). An action is written down as requested, with its input, before it runs:
 * after a crash a requested one runs again (at-least-once), a finished one never does, and a finished one
 * whose outcome message was not yet recorded is recorded on start.
 */
public final class ActionState {

    private static final Logger LOG = LoggerFactory.getLogger(ActionState.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final String FILE = "actions.json";
    /** Finished and reported entries kept for deduplication; the oldest go first. */
    private static final int KEEP = 2_000;

    /** One action for one event. {@code approvalPending}: a prepare that succeeded and still has to approve. */
    public record Entry(String action, String eventKey, ObjectNode input, String status, ObjectNode result,
                        boolean reported, boolean approvalPending) {
        public String id() {
            return id(action, eventKey);
        }

        static String id(String action, String eventKey) {
            return action + "|" + eventKey;
        }

        Entry with(String newStatus, ObjectNode newResult, boolean newReported, boolean newApprovalPending) {
            return new Entry(action, eventKey, input, newStatus, newResult, newReported, newApprovalPending);
        }
    }

    private final Path file;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    public ActionState(Path stateDir) {
        this.file = stateDir.resolve(FILE);
        load();
    }

    /** Writes the action down as requested; false when it was asked for before (it ran, or runs, already). */
    public synchronized boolean request(String action, String eventKey, ObjectNode input) {
        if (entries.containsKey(Entry.id(action, eventKey))) {
            return false;
        }
        Entry entry = new Entry(action, eventKey, input, "requested", null, false, false);
        entries.put(entry.id(), entry);
        try {
            save();
        } catch (UncheckedIOException e) {
            // Not written down, so not asked for: the next transition for this event asks again.
            entries.remove(entry.id());
            throw e;
        }
        return true;
    }

    /** An interrupted prepare whose event ended meanwhile: never run again, nothing left to report. */
    public synchronized Entry abandoned(Entry entry) {
        return put(entry.with("abandoned", null, true, false));
    }

    public synchronized Entry finished(Entry entry, ObjectNode result, boolean approvalPending) {
        return put(entry.with("finished", result, false, approvalPending));
    }

    public synchronized Entry reported(Entry entry) {
        Entry current = entries.getOrDefault(entry.id(), entry);
        return put(current.with(current.status(), current.result(), true, current.approvalPending()));
    }

    public synchronized Entry approvalDone(Entry entry) {
        Entry current = entries.getOrDefault(entry.id(), entry);
        return put(current.with(current.status(), current.result(), current.reported(), false));
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    private Entry put(Entry entry) {
        entries.remove(entry.id());
        entries.put(entry.id(), entry);
        List<String> prunable = entries.values().stream()
                .filter(e -> e.status().equals("finished") && e.reported() && !e.approvalPending())
                .map(Entry::id).toList();
        for (int i = 0; i < prunable.size() - KEEP; i++) {
            entries.remove(prunable.get(i));
        }
        save();
        return entry;
    }

    private void save() {
        ArrayNode all = MAPPER.createArrayNode();
        for (Entry e : entries.values()) {
            ObjectNode node = all.addObject();
            node.put("action", e.action());
            node.put("eventKey", e.eventKey());
            node.put("status", e.status());
            node.put("reported", e.reported());
            node.put("approvalPending", e.approvalPending());
            node.set("input", e.input());
            if (e.result() != null) {
                node.set("result", e.result());
            }
        }
        try {
            AtomicFiles.write(file, MAPPER.writeValueAsBytes(MAPPER.createObjectNode().put("version", 1).set("actions", all)));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        try {
            for (JsonNode node : MAPPER.readTree(Files.readAllBytes(file)).path("actions")) {
                Entry e = new Entry(node.path("action").asText(), node.path("eventKey").asText(),
                        (ObjectNode) node.get("input"), node.path("status").asText(),
                        node.hasNonNull("result") ? (ObjectNode) node.get("result") : null,
                        node.path("reported").asBoolean(), node.path("approvalPending").asBoolean());
                entries.put(e.id(), e);
            }
        } catch (java.nio.file.AccessDeniedException e) {
            // Not corrupt, only unreadable for this user: moving it aside would run every action again.
            throw new io.github.scheduledeventsbridge.config.BadConfigurationException("bridge.state.dir",
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
            entries.clear();
        }
        LOG.info("Action state loaded: {} action(s) remembered", entries.size());
    }

    /** Unused entries are kept small: the list in order, for tests and diagnostics. */
    List<String> ids() {
        return new ArrayList<>(entries.keySet());
    }
}
