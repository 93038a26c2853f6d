package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.Body;
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

    /** Route step: the approval of one due event (the split's body), by the rule that approves it. */
    public ApprovalRequest request(@Body ScheduledEvent event) {
        return ApprovalRequest.of(event, new ApprovalOrigin.Policy(policy.approves(event, identity.vm()).orElse("?")));
    }

    /** Route step: IMDS accepted (recorded by {@link Approvals}), or failed: then tried again in 30 s. */
    public synchronized void answered(@Body ApprovalOutcome outcome) {
        if (outcome instanceof ApprovalOutcome.Approved approved) {
            String rule = ((ApprovalOrigin.Policy) approved.request().origin()).rule();
            approved.request().events().forEach(event -> LOG.info("Auto-approved {} {} (rule {}); IMDS accepted",
                    event.eventType(), event.eventId(), rule));
        } else if (outcome instanceof ApprovalOutcome.Failed failed) {
            for (ScheduledEvent event : failed.request().events()) {
                LOG.warn("Auto-approval of {} failed ({}); retrying in {} s", event.eventId(), failed.cause(),
                        RETRY_AFTER_FAILURE.toSeconds());
                this.failed.add(event.key());
                handled.put(event.key(), clock.instant());
            }
        }
    }

    private DetectedTransition approved(ScheduledEvent event, String rule, boolean dry) {
        return new DetectedTransition(TransitionType.Approved, event, event.eventStatus(), event.eventStatus(),
                journal.lastDocument().incarnation(), new DetectedTransition.Approval("policy", rule, dry));
    }
}
