package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Approvals a policy holds back are never silent: each event is logged once per reason, with the reason, and
 * counted once in {@code bridge.approvals{outcome=withheld-<reason>}}, whose counters exist (at 0) from the start.
 */
public final class WithheldApprovals {

    private static final Logger LOG = LoggerFactory.getLogger(WithheldApprovals.class);
    static final String METER = "bridge.approvals";
    /** The help text of every bridge.approvals counter (Prometheus shows one per name). */
    public static final String HELP = "Approvals: approved (remote API), auto-approved, auto-failed, "
            + "withheld-<reason> (auto-approval held back), or the HTTP status of a refusal";

    private final CamelContext context;
    private final Map<ApprovalPolicy.Withheld, Counter> counters = new EnumMap<>(ApprovalPolicy.Withheld.class);
    /** Event key → the reasons already said for it; forgotten once IMDS no longer lists the event. */
    private final Map<String, Set<ApprovalPolicy.Withheld>> said = new HashMap<>();

    public WithheldApprovals(CamelContext context) {
        this.context = context;
    }

    /** At start: one counter per reason, at 0, with the tag keys of the route's micrometer steps. */
    public synchronized void registerMeters() {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (registry == null) {
            return;
        }
        for (ApprovalPolicy.Withheld reason : ApprovalPolicy.Withheld.values()) {
            counters.put(reason, Counter.builder(METER)
                    .tags("camelContext", context.getName(), "outcome", "withheld-" + reason.slug)
                    .description(HELP)
                    .register(registry));
        }
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
        Counter counter = counters.get(reason);
        if (counter != null) {
            counter.increment();
        }
    }

    /** Events IMDS no longer lists are forgotten. */
    public synchronized void retainListed(Set<String> listed) {
        said.keySet().retainAll(listed);
    }
}
