package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.ProcessTree;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * docs/actions-and-drain.md: runs the operator's prepare and recover commands for events affecting this VM, never on the poll
 * thread. Each event has a lane of its own, so its recover never starts before its prepare ended (or was killed at
 * its timeout), also across restarts; different events run side by side, four at a time. Where a command runs is the
 * {@link CommandLauncher}'s business, how its outcome reaches the sinks the {@link OutcomeReporter}'s, and whether a
 * successful prepare approves its event {@link AfterPrepareApproval}'s.
 */
public final class ActionRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    static final String PREPARE = "prepare";
    static final String RECOVER = "recover";
    /** What a recover is told when its event had no prepare (none configured for its type, or it ended first). */
    static final String NO_PREPARE = "none";
    /** ...when the prepare was interrupted by a stop of the agent and the event ended before it could run again. */
    static final String INTERRUPTED = "interrupted";
    private static final int THREADS = 4;
    /** How long a restart waits for a command the last run left behind to be gone (an action host ends it itself). */
    private static final Duration LEFTOVER_WAIT = Duration.ofSeconds(30);

    private final ActionSettings settings;
    private final ActionState state;
    private final VmIdentity identity;
    private final TransitionJournal journal;
    private final CamelContext context;
    private final Clock clock;
    private final CommandLauncher launcher;
    private final ActionExecution execution;
    private final EventLanes lanes = new EventLanes(THREADS);
    private final ActionMetrics metrics;
    private final AfterPrepareApproval approval;
    private final OutcomeReporter reporter;
    private volatile boolean stopping;

    /** Prepares interrupted by the last stop, by event: decided on the first document of this run. */
    private final Map<String, ActionState.Entry> deferredPrepares = new LinkedHashMap<>();

    public ActionRunner(ActionSettings settings, ActionState state, VmIdentity identity, TransitionJournal journal,
                        CamelContext context, Clock clock) {
        this.settings = settings;
        this.state = state;
        this.identity = identity;
        this.journal = journal;
        this.context = context;
        this.clock = clock;
        this.launcher = CommandLauncher.of(settings);
        this.execution = new ActionExecution(settings, state, launcher, clock);
        this.metrics = new ActionMetrics(context);
        this.approval = new AfterPrepareApproval(journal, identity, context, metrics, this::approvalDecided);
        this.reporter = new OutcomeReporter(state, journal, approval::consider);
    }

    /** For the start-up line. */
    public String describe() {
        return "prepare " + (settings.prepareCommand().isEmpty() ? "off" : "on") + ", recover "
                + (settings.recoverCommand().isEmpty() ? "off" : "on") + ", timeout " + settings.timeout().toMillis()
                + " ms, through " + settings.shell() + ", " + launcher.describe()
                + (settings.approveAfterPrepare() ? ", approval after a successful prepare (events of this VM alone)" : "");
    }

    /**
     * Route step (dispatch, start-up): writes down the actions these transitions call for, all in one append, and
     * queues them in their events' lanes; returns at once.
     */
    public synchronized void onTransitions(List<OutboundEvent> transitions) {
        if (!settings.any() || transitions == null) {
            return;
        }
        List<ActionState.Request> requests = new ArrayList<>();
        for (OutboundEvent t : transitions) {
            String action = actionFor(t);
            if (action == null || !affectsThisVm(t, action)) {
                continue;
            }
            String key = t.eventId().toUpperCase(Locale.ROOT);
            if (action.equals(RECOVER)) {
                abandonDeferredPrepare(key);
            }
            requests.add(new ActionState.Request(action, key, t.cloudEvent()));
        }
        for (ActionState.Entry entry : state.requestAll(requests)) {
            lanes.submit(entry.eventKey(), () -> run(entry));
        }
    }

    /**
     * At start: a command the last run left running (kill -9) is ended first, in its event's lane; then interrupted
     * recovers run again, interrupted prepares wait for the first document, and finished actions only have their
     * leftovers done (outcome message, approval).
     */
    public synchronized void resume() {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (registry != null) {
            io.micrometer.core.instrument.Gauge.builder("bridge.vm.identity.known", identity, i -> i.isKnown() ? 1 : 0)
                    .description("1 once this VM's identity is known: from IMDS instance metadata, or the last known one")
                    .register(registry);
        }
        metrics.registerAtStart(settings);
        List<ActionState.Entry> entries = state.entries();
        for (ActionState.Entry entry : entries) {
            if (entry.status().equals(ActionState.REQUESTED)) {
                lanes.submit(entry.eventKey(), () -> endLeftover(entry));
            }
        }
        for (ActionState.Entry entry : entries) {
            if (entry.status().equals(ActionState.REQUESTED) && entry.action().equals(PREPARE)) {
                // The maintenance itself may have stopped the agent (a Reboot): whether to prepare again is
                // decided on the first document of this run (see afterPoll), never beside the event's recover.
                deferredPrepares.put(entry.eventKey(), entry);
            }
        }
        for (ActionState.Entry entry : entries) {
            if (entry.status().equals(ActionState.REQUESTED) && entry.action().equals(RECOVER)) {
                abandonDeferredPrepare(entry.eventKey());
                LOG.warn("The recover command for {} had not finished when the agent stopped: running it {}",
                        eventId(entry), entry.process() == null ? "now" : "again");
                lanes.submit(entry.eventKey(), () -> run(entry));
            } else if (!entry.status().equals(ActionState.REQUESTED) && (!entry.reported() || entry.approvalPending())) {
                reporter.add(entry);
            }
        }
    }

    /**
     * Route step after each poll's document was recorded (and its transitions dispatched): the first one
     * resumes the prepares a stop interrupted, for events still Scheduled or Started; the others ended while
     * the agent was away, and their recover (if any) was asked for by this very document.
     */
    public synchronized void afterPoll() {
        if (deferredPrepares.isEmpty()) {
            return;
        }
        List<ActionState.Entry> resumed = List.copyOf(deferredPrepares.values());
        deferredPrepares.clear();
        var current = journal.lastDocument();
        for (ActionState.Entry entry : resumed) {
            boolean live = current.find(eventId(entry)).map(e -> e.isScheduled() || e.isStarted()).orElse(false);
            if (live) {
                LOG.warn("The prepare command for {} was interrupted (agent stopped while it ran): running it again",
                        eventId(entry));
                lanes.submit(entry.eventKey(), () -> run(entry));
            } else {
                abandon(entry);
            }
        }
    }

    public void stop() {
        stopping = true;
        // Interrupted first: a command killed by the stop is not a failure, it runs again at the next start.
        lanes.shutdownNow();
        launcher.stop();
        reporter.stop();
        approval.stop();
    }

    private void abandonDeferredPrepare(String eventKey) {
        ActionState.Entry prepare = deferredPrepares.remove(eventKey);
        if (prepare != null) {
            abandon(prepare);
        }
    }

    private void abandon(ActionState.Entry prepare) {
        LOG.warn("The prepare command for {} was interrupted and the event has ended since: not run again",
                eventId(prepare));
        try {
            state.abandoned(prepare);
        } catch (UncheckedIOException e) {
            LOG.error("That the prepare command for {} is not run again could not be written down: {}",
                    eventId(prepare), e.getMessage());
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
            identity.warnUnknown("prepare and recover commands run for every event, as if each affected this VM");
            return true;
        }
        return t.resources().stream().anyMatch(vm.name()::equalsIgnoreCase);
    }

    /** Runs one action in its event's lane, and hands its outcome on. */
    private void run(ActionState.Entry requested) {
        ActionState.Entry entry = state.find(requested.action(), requested.eventKey()).orElse(requested);
        if (stopping || !entry.status().equals(ActionState.REQUESTED)) {
            return;
        }
        String prepareOutcome = entry.action().equals(RECOVER) ? execution.prepareOutcome(entry.eventKey()) : null;
        CommandResult result;
        try {
            result = execution.execute(entry, prepareOutcome);
        } catch (InterruptedException e) {
            // The agent stops: still requested, so it runs again at the next start.
            Thread.currentThread().interrupt();
            return;
        }
        if (stopping) {
            return;
        }
        metrics.run(entry.action(), result.outcome(), result.took());
        ObjectNode outcome = OutcomeEvent.create(entry, result, prepareOutcome, clock);
        boolean approve = entry.action().equals(PREPARE) && settings.approveAfterPrepare();
        if (approve && !result.succeeded()) {
            LOG.warn("The prepare command for {} did not succeed ({}): the event is NOT approved", eventId(entry),
                    result.outcome());
            outcome.with("data").put("approval", "withheld");
            metrics.approval(ActionMetrics.WITHHELD_AFTER_FAILURE);
        }
        try {
            reporter.add(state.finished(entry, outcome, approve && result.succeeded()));
        } catch (UncheckedIOException e) {
            LOG.error("The outcome of the {} command for {} could not be written down ({}): it runs again at the next "
                    + "start", entry.action(), eventId(entry), e.getMessage());
        }
    }

    /**
     * A command the previous run of the agent left behind (kill -9): ended before anything else runs for its event.
     * Found by its pid when the process running as that pid now is provably the same one (a reused pid is never
     * killed), and by its run tag (what it started, or a command killed before its pid was written down). Says only
     * what happened: a command that had exited before the agent was killed is not "still running".
     */
    private void endLeftover(ActionState.Entry entry) {
        List<ProcessHandle> ended = new ArrayList<>();
        String runTag = state.runTag(entry);
        if (entry.process() != null) {
            ProcessTree.killLeftover(entry.process(), ActionEnvironment.RUN_TAG, runTag).ifPresent(ended::add);
        }
        for (ProcessHandle tagged : ProcessTree.withVariable(ActionEnvironment.RUN_TAG, runTag)) {
            if (ended.stream().noneMatch(p -> p.pid() == tagged.pid())) {
                ProcessTree.kill(tagged, false);
                ended.add(tagged);
            }
        }
        if (ended.isEmpty()) {
            return;
        }
        String pids = "pid " + ended.stream().map(p -> Long.toString(p.pid()))
                .collect(java.util.stream.Collectors.joining(", "));
        LOG.warn("The {} command for {} was still running from before the agent restarted ({}): ended with "
                + "everything it started, before anything else runs for this event", entry.action(), eventId(entry), pids);
        if (!ended.stream().allMatch(p -> ProcessTree.awaitGone(p, LEFTOVER_WAIT))) {
            LOG.warn("The {} command for {} ({}) is still there after {} s; going on", entry.action(), eventId(entry),
                    pids, LEFTOVER_WAIT.toSeconds());
        }
    }

    private void approvalDecided(ActionState.Entry entry) {
        try {
            state.approvalDone(entry);
        } catch (UncheckedIOException e) {
            LOG.error("The approval decision for {} could not be written down ({}): it is taken again at the next start",
                    eventId(entry), e.getMessage());
        }
    }

    static String eventId(ActionState.Entry entry) {
        return entry.input().path("data").path("eventId").asText(entry.eventKey());
    }
}
