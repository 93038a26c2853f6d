package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.ProcessIdentity;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which actions were asked for, started, finished and reported, per event. An action is written down as requested,
 * with its input, before it runs: after a crash a requested one runs again (at-least-once), a finished one never
 * does, and a finished one whose outcome message was not yet recorded is recorded on start.
 *
 * <p>On disk: a snapshot ({@link ActionSnapshot}) and the steps since then appended to
 * {@link ActionLog}. A step costs one small forced append, however many actions are remembered; all the requests of
 * one document are one append. The snapshot is rewritten only once the steps outweigh it, never by the poll thread.
 */
public final class ActionState {

    private static final Logger LOG = LoggerFactory.getLogger(ActionState.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    static final String FILE = ActionSnapshot.FILE;
    /** Finished and reported entries kept for deduplication; the oldest go first. */
    private static final int KEEP = 2_000;
    /** The snapshot is rewritten when the log has grown past this, or past the snapshot's own size. */
    private static final long COMPACT_AFTER = 1024 * 1024;

    static final String REQUESTED = "requested";
    static final String FINISHED = "finished";
    static final String ABANDONED = "abandoned";

    /**
     * One action for one event. {@code approvalPending}: a prepare that succeeded and still has to be considered for
     * approval. {@code process}: the process it runs as (null before it started), so that a restart after kill -9
     * can end what the previous run left behind, and nothing else.
     */
    public record Entry(String action, String eventKey, ObjectNode input, String status, ObjectNode result,
                        boolean reported, boolean approvalPending, ProcessIdentity process) {
        public String id() {
            return id(action, eventKey);
        }

        static String id(String action, String eventKey) {
            return action + "|" + eventKey;
        }

        Entry with(String newStatus, ObjectNode newResult, boolean newReported, boolean newApprovalPending) {
            return new Entry(action, eventKey, input, newStatus, newResult, newReported, newApprovalPending, process);
        }

        Entry withProcess(ProcessIdentity newProcess) {
            return new Entry(action, eventKey, input, status, result, reported, approvalPending, newProcess);
        }

        /** The pid its command runs as, null before it started and once it ended. */
        public Long pid() {
            return process == null ? null : process.pid();
        }
    }

    /** An action to write down: which, for which event, with the transition's CloudEvent as its input. */
    public record Request(String action, String eventKey, ObjectNode input) {
    }

    private final Path file;
    private final ActionLog log;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private long generation;
    private long snapshotBytes;

    private final int keep;
    private final long compactAfter;

    public ActionState(Path stateDir) {
        this(stateDir, KEEP, COMPACT_AFTER);
    }

    /** With other bounds than the agent's (tests: small ones). */
    ActionState(Path stateDir, int keep, long compactAfter) {
        this.keep = keep;
        this.compactAfter = compactAfter;
        this.file = stateDir.resolve(FILE);
        this.log = new ActionLog(stateDir.resolve(ActionLog.FILE));
        ActionSnapshot.Loaded snapshot = ActionSnapshot.read(file);
        snapshot.entries().forEach(e -> entries.put(e.id(), e));
        generation = snapshot.generation();
        snapshotBytes = snapshot.bytes();
        List<ObjectNode> steps = log.open(generation);
        generation = log.generation();
        steps.forEach(this::apply);
        LOG.info("Action state loaded: {} action(s) remembered", entries.size());
        compactIfDue();
    }

    /** Writes the action down as requested; false when it was asked for before (it ran, or runs, already). */
    public boolean request(String action, String eventKey, ObjectNode input) {
        return !requestAll(List.of(new Request(action, eventKey, input))).isEmpty();
    }

    /**
     * Writes down, in one forced append, those of these actions never asked for before, and returns them. When the
     * append fails none of them counts as asked for (the next transition asks again) and the failure is thrown.
     */
    public synchronized List<Entry> requestAll(List<Request> requests) {
        List<Entry> fresh = new ArrayList<>();
        List<ObjectNode> steps = new ArrayList<>();
        for (Request r : requests) {
            String id = Entry.id(r.action(), r.eventKey());
            if (entries.containsKey(id) || fresh.stream().anyMatch(e -> e.id().equals(id))) {
                continue;
            }
            fresh.add(new Entry(r.action(), r.eventKey(), r.input(), REQUESTED, null, false, false, null));
            steps.add(step("request", id).put("action", r.action()).put("eventKey", r.eventKey()).set("input", r.input()));
        }
        if (fresh.isEmpty()) {
            return List.of();
        }
        log.append(generation, steps);
        fresh.forEach(e -> entries.put(e.id(), e));
        return fresh;
    }

    /** The command of this action now runs as this process (a session leader where setsid exists). */
    public synchronized Entry started(Entry entry, ProcessIdentity process) {
        Entry current = current(entry);
        ObjectNode step = step("started", entry.id());
        process.writeTo(step);
        log.append(generation, List.of(step));
        return put(current.withProcess(process));
    }

    /** An interrupted prepare whose event ended meanwhile: never run again, nothing left to report. */
    public synchronized Entry abandoned(Entry entry) {
        log.append(generation, List.of(step("abandoned", entry.id())));
        return put(current(entry).with(ABANDONED, null, true, false).withProcess(null));
    }

    public synchronized Entry finished(Entry entry, ObjectNode result, boolean approvalPending) {
        ObjectNode step = step("finished", entry.id()).put("approvalPending", approvalPending);
        step.set("result", result);
        log.append(generation, List.of(step));
        return put(current(entry).with(FINISHED, result, false, approvalPending).withProcess(null));
    }

    /** Their outcome messages are recorded in the journal's outbox: one append for all of them. */
    public synchronized List<Entry> reported(List<Entry> reportedEntries) {
        log.append(generation, reportedEntries.stream().map(e -> step("reported", e.id())).toList());
        List<Entry> updated = new ArrayList<>();
        for (Entry e : reportedEntries) {
            Entry current = current(e);
            updated.add(put(current.with(current.status(), current.result(), true, current.approvalPending())));
        }
        return updated;
    }

    public Entry reported(Entry entry) {
        return reported(List.of(entry)).get(0);
    }

    public synchronized Entry approvalDone(Entry entry) {
        log.append(generation, List.of(step("approvalDone", entry.id())));
        Entry current = current(entry);
        return put(current.with(current.status(), current.result(), current.reported(), false));
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /**
     * The value of {@link ActionEnvironment#RUN_TAG} for this entry's command: unique to this state directory and
     * action, so that a restart finds the command a kill -9 left running even when its pid was not yet written down,
     * and never another agent's.
     */
    public String runTag(Entry entry) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(
                    (file.toAbsolutePath().normalize() + "\n" + entry.id()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest, 0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public synchronized Optional<Entry> find(String action, String eventKey) {
        return Optional.ofNullable(entries.get(Entry.id(action, eventKey)));
    }

    /**
     * Rewrites the snapshot once the log outweighs it (and drops the oldest finished entries beyond what is kept):
     * called off the poll thread, after outcomes were reported. A failure leaves the log as it is.
     */
    public synchronized void compactIfDue() {
        if (log.size() < Math.max(compactAfter, snapshotBytes)) {
            return;
        }
        prune();
        try {
            snapshotBytes = ActionSnapshot.write(file, generation + 1, entries.values());
            generation++;
        } catch (IOException e) {
            LOG.warn("Cannot rewrite {} ({}); the steps stay in {}", file, e.getMessage(), ActionLog.FILE);
            return;
        }
        // The snapshot holds everything now; a log that cannot be started afresh is retried with the next step.
        log.restart(generation);
    }

    private Entry current(Entry entry) {
        return entries.getOrDefault(entry.id(), entry);
    }

    private Entry put(Entry entry) {
        entries.remove(entry.id());
        entries.put(entry.id(), entry);
        return entry;
    }

    private void prune() {
        List<String> prunable = entries.values().stream()
                .filter(e -> !e.status().equals(REQUESTED) && e.reported() && !e.approvalPending())
                .map(Entry::id).toList();
        for (int i = 0; i < prunable.size() - keep; i++) {
            entries.remove(prunable.get(i));
        }
    }

    private static ObjectNode step(String op, String id) {
        return MAPPER.createObjectNode().put("op", op).put("id", id);
    }

    /** One step of the log on top of what is known; steps about entries pruned before are ignored. */
    private void apply(ObjectNode step) {
        String op = step.path("op").asText();
        String id = step.path("id").asText();
        if (op.equals("request")) {
            if (!entries.containsKey(id) && step.get("input") instanceof ObjectNode input) {
                Entry e = new Entry(step.path("action").asText(), step.path("eventKey").asText(), input, REQUESTED,
                        null, false, false, null);
                entries.put(e.id(), e);
            }
            return;
        }
        Entry e = entries.get(id);
        if (e == null) {
            return;
        }
        switch (op) {
            case "started" -> put(e.withProcess(ProcessIdentity.readFrom(step)));
            case "abandoned" -> put(e.with(ABANDONED, null, true, false).withProcess(null));
            case "finished" -> put(e.with(FINISHED, step.get("result") instanceof ObjectNode r ? r : null, false,
                    step.path("approvalPending").asBoolean()).withProcess(null));
            case "reported" -> put(e.with(e.status(), e.result(), true, e.approvalPending()));
            case "approvalDone" -> put(e.with(e.status(), e.result(), e.reported(), false));
            default -> LOG.warn("Unknown step {} in {} ignored", op, ActionLog.FILE);
        }
    }

    /** The entries' ids in order, for tests and diagnostics. */
    List<String> ids() {
        return new ArrayList<>(entries.keySet());
    }
}
