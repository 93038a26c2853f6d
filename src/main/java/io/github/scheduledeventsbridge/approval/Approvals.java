package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The steps every approval shares, whatever its origin (routes/approvals.yaml, {@code approve} and
 * {@code approve-request}): a verified body checked against the current document, IMDS's answer turned into an
 * {@link ApprovalOutcome}, the Approved transitions recorded, remote approvals audited, and every outcome counted
 * ({@link ApprovalMetrics}; approval after prepare has its own meter).
 */
public final class Approvals {

    private static final Logger LOG = LoggerFactory.getLogger(Approvals.class);
    /** The 409's reason when every EventId asked for was approved by this agent before (docs/approvals.md). */
    public static final String ALREADY_APPROVED = "already approved by this agent";

    private final TransitionJournal journal;
    private final ApprovalAudit audit;
    private final ApprovalMetrics metrics;

    public Approvals(TransitionJournal journal, ApprovalAudit audit, ApprovalMetrics metrics) {
        this.journal = journal;
        this.audit = audit;
        this.metrics = metrics;
    }

    /**
     * Route step: the EventIds against the current document. Every one must be listed; those this agent approved
     * before are not sent again; the others must be Scheduled. Refuses (ApprovalRefused, with the ids) otherwise.
     */
    public ApprovalRequest admit(@Body VerifiedApproval approval) {
        List<String> requested = ApprovalBodies.eventIds(approval.body());
        ImdsDocument current = journal.lastDocument();
        Set<String> approvedHere = journal.approvedEvents();
        List<ScheduledEvent> events = new ArrayList<>();
        List<String> already = new ArrayList<>();
        for (String id : requested) {
            ScheduledEvent event = current.find(id).orElseThrow(() ->
                    new ApprovalRefused(404, "EventId " + id + " is not in the current document", requested));
            if (approvedHere.contains(event.key())) {
                already.add(event.eventId()); // a client's retry after a lost answer: not sent to IMDS again
            } else if (!event.isScheduled()) {
                throw new ApprovalRefused(409, "EventId " + id + " is " + event.eventStatus() + ", not Scheduled",
                        requested);
            } else {
                events.add(event);
            }
        }
        if (events.isEmpty()) {
            throw new ApprovalRefused(409, ALREADY_APPROVED + ": " + String.join(", ", already), requested);
        }
        return new ApprovalRequest(requested, events, already, approval.origin());
    }

    /** Route step when {@link #admit} refused: the outcome, audited and counted. */
    public ApprovalOutcome refused(@Body VerifiedApproval approval,
                                   @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) ApprovalRefused refusal) {
        return settled(approval.origin(), new ApprovalOutcome.Refused(refusal.status(), refusal.getMessage(),
                refusal.eventIds()));
    }

    /**
     * Route step (the enrich's aggregation): IMDS answered. Accepted: an Approved transition per event, recorded
     * (delivered by the next poll's dispatch); the approval happened, so a state that cannot be written now only
     * delays the record (kept in memory, written with the next poll; the outcome says so).
     */
    public ApprovalOutcome imdsAnswered(ApprovalRequest request, ImdsStartAnswer answer) {
        if (!answer.accepted()) {
            return settled(request.origin(), new ApprovalOutcome.Failed(request, answer.reason(), answer.cause()));
        }
        long incarnation = journal.lastDocument().incarnation();
        List<DetectedTransition> approved = request.events().stream().map(e ->
                new DetectedTransition(TransitionType.Approved, e, e.eventStatus(), e.eventStatus(), incarnation,
                        request.origin().approval())).toList();
        boolean recorded;
        try {
            recorded = journal.recordApproved(approved);
        } catch (IOException e) {
            LOG.warn("Approval of {} accepted by IMDS but not recorded: {}", request.sent(), e.getMessage());
            recorded = false;
        }
        return settled(request.origin(), new ApprovalOutcome.Approved(request, recorded));
    }

    /** Remote approvals audited; every outcome counted once, here. */
    private ApprovalOutcome settled(ApprovalOrigin origin, ApprovalOutcome outcome) {
        boolean remote = origin instanceof ApprovalOrigin.Client || origin instanceof ApprovalOrigin.Queue;
        if (remote) {
            if (outcome instanceof ApprovalOutcome.Approved approved) {
                audit.approved(origin.toString(), approved.approved());
            } else if (outcome instanceof ApprovalOutcome.Refused refused) {
                audit.refused(origin.toString(), refused.status(), refused.reason(),
                        refused.eventIds().isEmpty() ? null : refused.eventIds());
            } else if (outcome instanceof ApprovalOutcome.Failed failed) {
                audit.refused(origin.toString(), ApprovalReply.IMDS_FAILED, failed.reason(), failed.request().eventIds());
            }
        }
        String counted = counted(origin, outcome);
        if (counted != null) {
            metrics.count(counted);
        }
        return outcome;
    }

    /** The bridge_approvals_total outcome (docs/operations.md); null for approval after prepare (its own meter). */
    private static String counted(ApprovalOrigin origin, ApprovalOutcome outcome) {
        boolean approved = outcome instanceof ApprovalOutcome.Approved;
        if (origin instanceof ApprovalOrigin.Client) {
            return approved ? ApprovalMetrics.APPROVED : Integer.toString(ApprovalReply.of(outcome).status());
        }
        if (origin instanceof ApprovalOrigin.Queue) {
            return approved ? ApprovalMetrics.QUEUE_APPROVED : outcome instanceof ApprovalOutcome.Refused
                    ? ApprovalMetrics.QUEUE_REFUSED : ApprovalMetrics.QUEUE_FAILED;
        }
        if (origin instanceof ApprovalOrigin.Policy) {
            return approved ? ApprovalMetrics.AUTO_APPROVED : ApprovalMetrics.AUTO_FAILED;
        }
        return null;
    }
}
