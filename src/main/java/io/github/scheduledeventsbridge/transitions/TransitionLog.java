package io.github.scheduledeventsbridge.transitions;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.logging.Logger;
import org.apache.camel.CamelContext;

/**
 * One log line and one count (bridge.transitions{transition}) per transition, told by the journal once the
 * transitions are on disk; one step: a split with a log and a metrics endpoint per transition cost ~1 ms each, a
 * second for a 1000-event document.
 */
public final class TransitionLog {

    /**
     * JUL directly, which the agent logs with anyway (logging/BridgeLogging): SLF4J's JUL adapter walks the
     * stack for the caller of every line (~7 % of the polling thread's CPU in a 1000-event document), which
     * the agent's line format never shows.
     */
    private static final Logger LOG = Logger.getLogger("io.github.scheduledeventsbridge.transitions");

    private final CamelContext context;

    public TransitionLog(CamelContext context) {
        this.context = context;
    }

    public void record(List<OutboundEvent> transitions) {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        for (OutboundEvent transition : transitions) {
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
