package io.github.scheduledeventsbridge.transitions;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;

/**
 * One log line and one count (bridge.transitions{transition}) per transition, once, in one step: a split with a log
 * and a metrics endpoint per transition cost ~1 ms each, a second for a 1000-event document.
 */
public final class TransitionLog {

    /**
     * JUL directly, which the agent logs with anyway (logging/BridgeLogging): SLF4J's JUL adapter walks the
     * stack for the caller of every line (~7 % of the polling thread's CPU in a 1000-event document), which
     * the agent's line format never shows.
     */
    private static final Logger LOG = Logger.getLogger("io.github.scheduledeventsbridge.transitions");

    private final CamelContext context;
    private final long firstSeqOfThisRun;
    /** This run's transitions already logged that are still in the outbox. */
    private final Set<Long> logged = new HashSet<>();

    /** {@code firstSeqOfThisRun}: those below it an earlier run logged when it recorded them. */
    public TransitionLog(CamelContext context, long firstSeqOfThisRun) {
        this.context = context;
        this.firstSeqOfThisRun = firstSeqOfThisRun;
    }

    /**
     * Logs and counts what in the journal's whole outbox is new: an outbox handed out again (a dispatch that failed
     * half-way, start-up recovery) is not logged twice, an approval recorded since is.
     */
    public synchronized void record(List<OutboundEvent> outbox) {
        logged.retainAll(outbox.stream().map(OutboundEvent::seq).collect(Collectors.toSet()));
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        for (OutboundEvent transition : outbox) {
            if (transition.seq() < firstSeqOfThisRun || !logged.add(transition.seq())) {
                continue;
            }
            LOG.info(transition.summary());
            if (registry != null) {
                // The same tag keys as the micrometer component's meters (camelContext): Prometheus refuses one
                // name with two sets of tag keys.
                registry.counter("bridge.transitions", "camelContext", context.getName(),
                        "transition", transition.transition()).increment();
            }
        }
    }
}
