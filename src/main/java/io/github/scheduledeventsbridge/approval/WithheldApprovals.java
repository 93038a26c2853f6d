package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Approvals a policy holds back are never silent: each event is logged once per reason, with the reason, and
 * counted once in {@code bridge.approvals{outcome=withheld-<reason>}} ({@link ApprovalMetrics}: present from the start).
 */
public final class WithheldApprovals {

    private static final Logger LOG = LoggerFactory.getLogger(WithheldApprovals.class);
    private final ApprovalMetrics metrics;
    /** Event key → the reasons already said for it; forgotten once IMDS no longer lists the event. */
    private final Map<String, Set<ApprovalPolicy.Withheld>> said = new HashMap<>();

    public WithheldApprovals(ApprovalMetrics metrics) {
        this.metrics = metrics;
    }

    /** The policy did not approve this event: said and counted the first time for this event and reason. */
    public synchronized void withheld(ScheduledEvent event, ApprovalPolicy.Decision decision) {
        ApprovalPolicy.Withheld reason = decision.withheld();
        if (!said.computeIfAbsent(event.key(), k -> EnumSet.noneOf(ApprovalPolicy.Withheld.class)).add(reason)) {
            return;
        }
        String line = "Auto-approval withheld for {} {} ({}): {}";
        if (reason == ApprovalPolicy.Withheld.IDENTITY_UNKNOWN) {
            LOG.warn(line, event.eventType(), event.eventId(), reason.slug, decision.why());
        } else {
            LOG.info(line, event.eventType(), event.eventId(), reason.slug, decision.why());
        }
        metrics.count(ApprovalMetrics.withheld(reason));
    }

    /** Events IMDS no longer lists are forgotten. */
    public synchronized void retainListed(Set<String> listed) {
        said.keySet().retainAll(listed);
    }
}
