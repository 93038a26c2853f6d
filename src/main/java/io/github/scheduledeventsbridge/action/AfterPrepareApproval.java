package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.approval.ApprovalOrigin;
import io.github.scheduledeventsbridge.approval.ApprovalOutcome;
import io.github.scheduledeventsbridge.approval.ApprovalRequest;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code bridge.approval.auto.after-prepare}: once this VM's prepare succeeded, its event is approved at IMDS, so the
 * platform need not wait for NotBefore. Only an event whose Resources name this VM alone: one approval releases every
 * VM listed, and the others may not have prepared (VMs do not coordinate), so such an event is left to NotBefore or
 * to an operator's approval through the remote approval API once every VM is ready. Every decision is logged once per
 * event and counted; IMDS failures are retried a few times while the event is still Scheduled, then given up, in so
 * many words.
 */
final class AfterPrepareApproval {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    static final int ATTEMPTS = 3;
    private static final Duration BACKOFF = Duration.ofSeconds(5);

    /** Called once the event was decided on (approved, withheld or given up), to write that down. */
    interface Decided {
        void decided(ActionState.Entry entry);
    }

    private final TransitionJournal journal;
    private final VmIdentity identity;
    private final CamelContext context;
    private final ActionMetrics metrics;
    private final Decided decided;
    private final ScheduledExecutorService attempts = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bridge-action-approval");
        t.setDaemon(true);
        return t;
    });
    private ProducerTemplate producer;

    AfterPrepareApproval(TransitionJournal journal, VmIdentity identity, CamelContext context, ActionMetrics metrics,
                         Decided decided) {
        this.journal = journal;
        this.identity = identity;
        this.context = context;
        this.metrics = metrics;
        this.decided = decided;
    }

    /** The prepare of this entry succeeded: approve its event if that releases no other VM. Returns at once. */
    void consider(ActionState.Entry entry) {
        schedule(() -> attempt(entry, 1), Duration.ZERO);
    }

    void stop() {
        attempts.shutdownNow();
        if (producer != null) {
            try {
                producer.stop();
            } catch (Exception ignored) {
                // nothing to release
            }
        }
    }

    private void attempt(ActionState.Entry entry, int attempt) {
        String eventId = ActionRunner.eventId(entry);
        Optional<ScheduledEvent> listed = journal.lastDocument().events().stream()
                .filter(e -> e.key().equals(entry.eventKey())).findFirst();
        if (listed.isEmpty() || !listed.get().isScheduled()) {
            LOG.info("{} is no longer Scheduled: {}", eventId, attempt == 1
                    ? "nothing to approve after its prepare" : "its approval is not retried");
            metrics.approval(ActionMetrics.NO_LONGER_SCHEDULED);
            decided.decided(entry);
            return;
        }
        ScheduledEvent event = listed.get();
        if (journal.approvedEvents().contains(event.key())) {
            LOG.info("Prepare of {} succeeded; it is approved at IMDS already", eventId);
            decided.decided(entry);
            return;
        }
        if (attempt == 1 && !onlyThisVm(event)) {
            decided.decided(entry);
            return;
        }
        String failure;
        try {
            // Recorded as approved by policy, rule after-prepare (approval/Approvals), like every approval.
            ApprovalOutcome outcome = producer().requestBody("direct:approve-request",
                    ApprovalRequest.of(event, new ApprovalOrigin.AfterPrepare()), ApprovalOutcome.class);
            failure = outcome instanceof ApprovalOutcome.Failed failed ? failed.cause()
                    : outcome instanceof ApprovalOutcome.Approved ? null : String.valueOf(outcome);
        } catch (RuntimeException e) {
            failure = cause(e);
        }
        if (failure != null) {
            metrics.approval(ActionMetrics.ATTEMPT_FAILED);
            if (attempt < ATTEMPTS) {
                LOG.warn("Approval of {} after its prepare failed (attempt {} of {}): {}; retried in {} s while it is "
                        + "Scheduled", eventId, attempt, ATTEMPTS, failure, BACKOFF.toSeconds() * attempt);
                schedule(() -> attempt(entry, attempt + 1), BACKOFF.multipliedBy(attempt));
            } else {
                LOG.warn("Approval of {} after its prepare failed (attempt {} of {}): {}; given up: the platform starts "
                        + "it at NotBefore, or approve it through the remote approval API", eventId, attempt, ATTEMPTS,
                        failure);
                metrics.approval(ActionMetrics.GIVEN_UP);
                decided.decided(entry);
            }
            return;
        }
        LOG.info("Approved {} {} after its prepare command succeeded; IMDS accepted", event.eventType(), eventId);
        metrics.approval(ActionMetrics.APPROVED);
        decided.decided(entry);
    }

    /** True when approving releases no VM but this one; otherwise says once why not, and counts it. */
    private boolean onlyThisVm(ScheduledEvent event) {
        VmIdentity.Vm vm = identity.vm();
        if (vm == null) {
            identity.warnUnknown("no event is approved after its prepare (whether that would release other VMs "
                    + "cannot be told)");
            metrics.approval(ActionMetrics.IDENTITY_UNKNOWN);
            return false;
        }
        List<String> others = event.resources().stream().filter(r -> !r.equalsIgnoreCase(vm.name())).toList();
        if (event.resources().isEmpty() || !others.isEmpty()) {
            LOG.info("Prepare of {} succeeded; not approved: its Resources also name {}, and one approval would release "
                    + "them before they prepared. It starts at NotBefore, or approve it through the remote approval API "
                    + "once every VM is ready", event.eventId(), others.isEmpty() ? "no VM at all" : others);
            metrics.approval(ActionMetrics.WITHHELD_OTHER_VMS);
            return false;
        }
        return true;
    }

    /** The reason, not Camel's "Exception occurred during execution on the exchange: Exchange[…]". */
    private static String cause(Throwable e) {
        Throwable cause = e;
        while (cause instanceof org.apache.camel.CamelExecutionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }

    private synchronized ProducerTemplate producer() {
        if (producer == null) {
            producer = context.createProducerTemplate();
        }
        return producer;
    }

    private void schedule(Runnable task, Duration delay) {
        try {
            attempts.schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("Approval after prepare failed unexpectedly: {}", e.toString());
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // The agent stops: the approval is still pending on disk and considered again at the next start.
        }
    }
}
