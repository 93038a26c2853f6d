package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.approval.ApprovalGate;
import io.github.scheduledeventsbridge.approval.ApprovalPolicy;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * docs/actions-and-drain.md: runs the operator's prepare and recover commands for events affecting this VM, never on the poll
 * thread (a small pool of its own), each through {@code /bin/sh -c} in its own session so that a timeout kills
 * it and its children. The outcome goes to the log, to {@code bridge.actions{action,outcome}} and, as a
 * CloudEvent recorded in the journal's outbox, to every sink with the next poll.
 */
public final class ActionRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    public static final String TYPE_PREFIX = "io.github.scheduledeventsbridge.action.";
    static final String PREPARE = "prepare";
    static final String RECOVER = "recover";
    private static final int THREADS = 4;
    private static final int APPROVAL_ATTEMPTS = 3;

    private final ActionSettings settings;
    private final ActionState state;
    private final VmIdentity identity;
    private final TransitionJournal journal;
    private final CamelContext context;
    private final Clock clock;
    private final ExecutorService pool;
    /** Commands running now: killed with their children when the agent stops (they run again at the next start). */
    private final java.util.Set<Process> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Prepares interrupted by the last stop, decided on the first document of this run. */
    private final List<ActionState.Entry> deferredPrepares = new java.util.concurrent.CopyOnWriteArrayList<>();

    public ActionRunner(ActionSettings settings, ActionState state, VmIdentity identity, TransitionJournal journal,
                        CamelContext context, Clock clock) {
        this.settings = settings;
        this.state = state;
        this.identity = identity;
        this.journal = journal;
        this.context = context;
        this.clock = clock;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "bridge-action-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Route step (dispatch, start-up): asks for the actions these transitions call for; returns at once. */
    public void onTransitions(List<OutboundEvent> transitions) {
        if (!settings.any() || transitions == null) {
            return;
        }
        for (OutboundEvent t : transitions) {
            String action = actionFor(t);
            if (action == null || !affectsThisVm(t, action)) {
                continue;
            }
            String key = t.eventId().toUpperCase(Locale.ROOT);
            if (state.request(action, key, t.cloudEvent())) {
                ActionState.Entry entry = state.entries().stream().filter(e -> e.id().equals(action + "|" + key))
                        .findFirst().orElseThrow();
                pool.submit(() -> run(entry));
            }
        }
    }

    /** At start: actions interrupted by a crash run again; finished ones only have their leftovers done. */
    public void resume() {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (registry != null) {
            io.micrometer.core.instrument.Gauge.builder("bridge.vm.identity.known", identity, i -> i.isKnown() ? 1 : 0)
                    .description("1 once this VM's identity is known: from IMDS instance metadata, or the last known one").register(registry);
        }
        for (ActionState.Entry entry : state.entries()) {
            if (entry.status().equals("requested") && entry.action().equals(PREPARE)) {
                // The maintenance itself may have stopped the agent (a Reboot): whether to prepare again is
                // decided on the first document of this run (see afterPoll), never beside the event's recover.
                deferredPrepares.add(entry);
            } else if (entry.status().equals("requested")) {
                LOG.warn("The {} command for {} was interrupted (agent stopped while it ran): running it again",
                        entry.action(), eventId(entry));
                pool.submit(() -> run(entry));
            } else if (!entry.reported() || entry.approvalPending()) {
                pool.submit(() -> afterwards(entry));
            }
        }
    }

    /**
     * Route step after each poll's document was recorded (and its transitions dispatched): the first one
     * resumes the prepares a stop interrupted, for events still Scheduled or Started; the others ended while
     * the agent was away, and their recover (if any) was asked for by this very document.
     */
    public void afterPoll() {
        if (deferredPrepares.isEmpty()) {
            return;
        }
        List<ActionState.Entry> resumed = List.copyOf(deferredPrepares);
        deferredPrepares.clear();
        var current = journal.lastDocument();
        for (ActionState.Entry entry : resumed) {
            boolean live = current.find(eventId(entry)).map(e -> e.isScheduled() || e.isStarted()).orElse(false);
            if (live) {
                LOG.warn("The prepare command for {} was interrupted (agent stopped while it ran): running it again",
                        eventId(entry));
                pool.submit(() -> run(entry));
            } else {
                LOG.warn("The prepare command for {} was interrupted and the event has ended since: not run again",
                        eventId(entry));
                state.abandoned(entry);
            }
        }
    }

    public void stop() {
        // Taken before the pool is interrupted: an interrupted run forgets its process on the way out.
        List<Process> toKill = List.copyOf(running);
        pool.shutdownNow();
        for (Process process : toKill) {
            try {
                ShellCommand.killTree(process);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String actionFor(OutboundEvent t) {
        String transition = t.transition();
        if ((transition.equals("Scheduled") || transition.equals("Started")) && !settings.prepareCommand().isEmpty()) {
            String type = t.eventType();
            boolean wanted = settings.prepareEventTypes().isEmpty() || settings.prepareEventTypes().stream()
                    .anyMatch(s -> s.equalsIgnoreCase(type));
            return wanted ? PREPARE : null;
        }
        if ((transition.equals("Completed") || transition.equals("Cancelled")) && !settings.recoverCommand().isEmpty()) {
            return RECOVER;
        }
        return null;
    }

    private boolean affectsThisVm(OutboundEvent t, String action) {
        VmIdentity.Vm vm = identity.vm();
        if (vm == null) {
            identity.warnUnknown("running the " + action + " command for " + t.eventId()
                    + " as if every event affected this VM");
            return true;
        }
        return t.resources().stream().anyMatch(vm.name()::equalsIgnoreCase);
    }

    private void run(ActionState.Entry entry) {
        try {
            ObjectNode result = execute(entry);
            boolean ok = "succeeded".equals(result.path("data").path("outcome").asText());
            boolean approve = entry.action().equals(PREPARE) && settings.approveAfterPrepare();
            if (approve && !ok) {
                LOG.warn("The prepare command for {} did not succeed ({}): the event is NOT approved",
                        eventId(entry), result.path("data").path("outcome").asText());
                result.with("data").put("approval", "withheld");
                count("bridge.action.approvals", "outcome", "withheld-after-prepare");
            }
            afterwards(state.finished(entry, result, approve && ok));
        } catch (RuntimeException e) {
            LOG.error("The {} command for {} could not be run: {}", entry.action(), eventId(entry), e.toString());
        }
    }

    /** A finished action: its outcome message recorded, then the approval it may call for. */
    private void afterwards(ActionState.Entry entry) {
        try {
            if (!entry.reported() && entry.result() != null) {
                journal.recordCloudEvents(List.of(entry.result()));
                entry = state.reported(entry);
            }
            if (entry.approvalPending()) {
                approve(entry);
                state.approvalDone(entry);
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("The outcome of the {} command for {} could not be recorded: {}", entry.action(),
                    eventId(entry), e.toString());
        }
    }

    private ObjectNode execute(ActionState.Entry entry) {
        String command = entry.action().equals(PREPARE) ? settings.prepareCommand() : settings.recoverCommand();
        JsonNode data = entry.input().path("data");
        String eventId = data.path("eventId").asText();
        LOG.info("Running the {} command for {} {} ({})", entry.action(), data.path("eventType").asText(), eventId,
                data.path("transition").asText());
        ShellCommand.Result result;
        try {
            result = ShellCommand.run(command, environment(data), MAPPER.writeValueAsBytes(entry.input()),
                    settings.timeout(), entry.action() + " " + eventId, running);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the command ran (agent stopping)", e);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (result.succeeded()) {
            LOG.info("The {} command for {} succeeded in {} ms", entry.action(), eventId, result.took().toMillis());
        } else {
            LOG.warn("The {} command for {} {} (exit code {}) after {} ms", entry.action(), eventId,
                    result.outcome().equals("timed-out") ? "timed out and was killed with its children" : "failed",
                    result.exitCode() == null ? "none" : result.exitCode(), result.took().toMillis());
        }
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (registry != null) {
            Timer.builder("bridge.actions").tag("action", entry.action()).tag("outcome", result.outcome())
                    .description("Prepare and recover commands run on this VM").register(registry).record(result.took());
        }
        return outcomeEvent(entry, result.outcome(), result.exitCode(), result.took());
    }

    /** The SEB_* variables of docs/actions-and-drain.md, from the transition's CloudEvent data. */
    private static Map<String, String> environment(JsonNode data) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("SEB_TRANSITION", data.path("transition").asText(""));
        env.put("SEB_EVENT_ID", data.path("eventId").asText(""));
        env.put("SEB_EVENT_TYPE", data.path("eventType").asText(""));
        env.put("SEB_EVENT_STATUS", data.path("eventStatus").asText(""));
        env.put("SEB_NOT_BEFORE", data.path("notBefore").asText(""));
        List<String> resources = new ArrayList<>();
        data.path("resources").forEach(r -> resources.add(r.asText()));
        env.put("SEB_RESOURCES", String.join(",", resources));
        env.put("SEB_DURATION_SECONDS", data.path("durationInSeconds").asText(""));
        env.put("SEB_EVENT_SOURCE", data.path("eventSource").asText(""));
        env.put("SEB_DESCRIPTION", data.path("description").asText(""));
        env.put("SEB_VM_NAME", data.path("vm").path("name").asText(""));
        return env;
    }

    private ObjectNode outcomeEvent(ActionState.Entry entry, String outcome, Integer exitCode, Duration took) {
        ObjectNode input = entry.input();
        JsonNode in = input.path("data");
        ObjectNode ce = MAPPER.createObjectNode();
        ce.put("specversion", "1.0");
        ce.put("id", UUID.randomUUID().toString());
        ce.put("source", input.path("source").asText());
        ce.put("type", TYPE_PREFIX + (outcome.equals("succeeded") ? "Succeeded" : "Failed"));
        ce.put("subject", in.path("eventId").asText());
        ce.put("time", DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS)));
        ce.put("datacontenttype", "application/json");
        ObjectNode data = ce.putObject("data");
        data.put("transition", outcome.equals("succeeded") ? "ActionSucceeded" : "ActionFailed");
        data.put("action", entry.action());
        data.put("outcome", outcome);
        if (exitCode == null) {
            data.putNull("exitCode");
        } else {
            data.put("exitCode", exitCode);
        }
        data.put("durationMs", took.toMillis());
        data.put("trigger", in.path("transition").asText());
        for (String field : List.of("eventId", "eventType", "eventStatus", "resourceType", "resources", "notBefore",
                "description", "eventSource", "durationInSeconds", "vm")) {
            if (in.has(field)) {
                data.set(field, in.get(field));
            }
        }
        return ce;
    }

    private void approve(ActionState.Entry entry) {
        String key = entry.eventKey();
        ScheduledEvent event = journal.lastDocument().events().stream().filter(e -> e.key().equals(key))
                .findFirst().orElse(null);
        if (event == null || !event.isScheduled()) {
            LOG.info("Prepare of {} succeeded but the event is no longer Scheduled: nothing to approve", eventId(entry));
            return;
        }
        if (settings.leaderOnly()) {
            if (identity.vm() == null) {
                identity.warnUnknown("cannot tell whether this VM is the leader: " + event.eventId()
                        + " is not approved after its prepare");
                count("bridge.action.approvals", "outcome", "identity-unknown");
                return;
            }
            if (!ApprovalPolicy.isLeader(event, identity.vm())) {
                LOG.info("Prepare of {} succeeded; the first VM of Resources ({}) approves, not this one",
                        event.eventId(), event.resources().isEmpty() ? "none" : event.resources().get(0));
                return;
            }
        }
        ProducerTemplate producer = context.createProducerTemplate();
        try {
            for (int attempt = 1; attempt <= APPROVAL_ATTEMPTS; attempt++) {
                try {
                    producer.requestBody("direct:imds-start-requests", ApprovalGate.startRequests(List.of(event)));
                    LOG.info("Approved {} {} after its prepare command succeeded; IMDS accepted", event.eventType(),
                            event.eventId());
                    count("bridge.action.approvals", "outcome", "approved-after-prepare");
                    journal.recordApproved(List.of(new DetectedTransition(TransitionType.Approved, event,
                            event.eventStatus(), event.eventStatus(), journal.lastDocument().incarnation(),
                            new DetectedTransition.Approval("policy", "after-prepare", false))));
                    return;
                } catch (RuntimeException e) {
                    LOG.warn("Approval of {} after its prepare failed (attempt {} of {}): {}", event.eventId(),
                            attempt, APPROVAL_ATTEMPTS, e.getMessage());
                    count("bridge.action.approvals", "outcome", "after-prepare-failed");
                    Thread.sleep(5_000L * attempt);
                }
            }
        } catch (IOException e) {
            LOG.warn("Approval of {} accepted but not recorded: {}", event.eventId(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                producer.stop();
            } catch (Exception ignored) {
                // nothing to release
            }
        }
    }

    private void count(String name, String tag, String value) {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (registry != null) {
            registry.counter(name, "camelContext", context.getName(), tag, value).increment();
        }
    }

    private static String eventId(ActionState.Entry entry) {
        return entry.input().path("data").path("eventId").asText(entry.eventKey());
    }
}
