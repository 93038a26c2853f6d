package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Route steps of auto-approval: after each poll, the Scheduled events the policy approves are sent to
 * IMDS once each (again after 30 s if IMDS failed). In dry-run mode nothing is sent: the agent logs and
 * emits an Approved transition marked {@code dryRun}, so the policy can be watched before it acts. An event
 * already approved (by anyone, recorded in the journal, also before a restart) is not approved again; one the
 * policy holds back is said and counted once per reason ({@link WithheldApprovals}).
 */
public final class AutoApprover {

    private static final Logger LOG = LoggerFactory.getLogger(AutoApprover.class);
    private static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(30);
    static final String RULE_PROPERTY = "autoApprovalRule";

    private final ApprovalPolicy policy;
    private final boolean dryRun;
    private final VmIdentity identity;
    private final TransitionJournal journal;
    private final Clock clock;
    private final WithheldApprovals withheld;
    /** Event key → when it was handled (approved, dry-run reported, or last failed). */
    private final Map<String, Instant> handled = new HashMap<>();
    private final Set<String> failed = new java.util.HashSet<>();

    public AutoApprover(ApprovalPolicy policy, boolean dryRun, VmIdentity identity, TransitionJournal journal, Clock clock,
                        WithheldApprovals withheld) {
        this.policy = policy;
        this.withheld = withheld;
        this.dryRun = dryRun;
        this.identity = identity;
        this.journal = journal;
        this.clock = clock;
    }

    public boolean hasRules() {
        return policy.hasRules();
    }

    /** Called where the bean is made: the withheld-… counters exist from the start when there are rules. */
    public void registerMeters() {
        if (policy.hasRules()) {
            withheld.registerMeters();
        }
    }

    /** Route step: the events to approve now (empty when there are no rules, or in dry-run mode). */
    public synchronized List<ScheduledEvent> due() throws IOException {
        if (!policy.hasRules()) {
            return List.of();
        }
        List<ScheduledEvent> current = journal.lastDocument().events();
        Set<String> listed = current.stream().map(ScheduledEvent::key).collect(Collectors.toSet());
        handled.keySet().retainAll(listed);
        failed.retainAll(listed);
        withheld.retainListed(listed);
        Set<String> approvedAlready = journal.approvedEvents();
        Instant now = clock.instant();
        List<ScheduledEvent> due = new ArrayList<>();
        List<DetectedTransition> dryRuns = new ArrayList<>();
        for (ScheduledEvent event : current) {
            Instant last = handled.get(event.key());
            boolean retryDue = last != null && failed.contains(event.key()) && now.isAfter(last.plus(RETRY_AFTER_FAILURE));
            if (approvedAlready.contains(event.key()) || last != null && !retryDue) {
                continue;
            }
            ApprovalPolicy.Decision decision = policy.decide(event, identity.vm()).orElse(null);
            if (decision == null) {
                continue;
            }
            if (!decision.approves()) {
                withheld.withheld(event, decision);
                continue;
            }
            handled.put(event.key(), now);
            failed.remove(event.key());
            if (dryRun) {
                LOG.info("DRY RUN: would approve {} {} (rule {}); nothing is sent to IMDS", event.eventType(),
                        event.eventId(), decision.rule());
                dryRuns.add(approved(event, decision.rule(), true));
            } else {
                due.add(event);
            }
        }
        if (!dryRuns.isEmpty()) {
            journal.record(dryRuns);
        }
        return due;
    }

    /** Route step: the StartRequests body for one event (the split's body). */
    public void prepare(Exchange exchange) {
        ScheduledEvent event = exchange.getMessage().getBody(ScheduledEvent.class);
        exchange.setProperty(ApprovalGate.EVENTS_PROPERTY, List.of(event));
        exchange.setProperty(RULE_PROPERTY, policy.approves(event, identity.vm()).orElse("?"));
        exchange.getMessage().setBody(ApprovalGate.startRequests(List.of(event)));
    }

    /** Route step: IMDS accepted the approval. */
    @SuppressWarnings("unchecked")
    public void accepted(Exchange exchange) throws IOException {
        ScheduledEvent event = ((List<ScheduledEvent>) exchange.getProperty(ApprovalGate.EVENTS_PROPERTY, List.class)).get(0);
        String rule = exchange.getProperty(RULE_PROPERTY, String.class);
        LOG.info("Auto-approved {} {} (rule {}); IMDS accepted", event.eventType(), event.eventId(), rule);
        // IMDS accepted: never "failed" (that would approve again), at worst recorded with the next poll.
        journal.recordApproved(List.of(approved(event, rule, false)));
    }

    /** Route step: IMDS could not be reached or refused; try again later. */
    @SuppressWarnings("unchecked")
    public synchronized void failed(Exchange exchange) {
        ScheduledEvent event = ((List<ScheduledEvent>) exchange.getProperty(ApprovalGate.EVENTS_PROPERTY, List.class)).get(0);
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        LOG.warn("Auto-approval of {} failed ({}); retrying in {} s", event.eventId(),
                cause == null ? "unknown" : cause.getMessage(), RETRY_AFTER_FAILURE.toSeconds());
        failed.add(event.key());
        handled.put(event.key(), clock.instant());
    }

    private DetectedTransition approved(ScheduledEvent event, String rule, boolean dry) {
        return new DetectedTransition(TransitionType.Approved, event, event.eventStatus(), event.eventStatus(),
                journal.lastDocument().incarnation(), new DetectedTransition.Approval("policy", rule, dry));
    }
}
