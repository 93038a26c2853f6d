package io.github.scheduledeventsbridge.transitions;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line and one count (bridge.transitions{transition}) per transition of a document, in one step:
 * a split with a log and a metrics endpoint per transition cost ~1 ms each, a second for a 1000-event document.
 */
public final class TransitionLog {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.scheduledeventsbridge.transitions");

    private final CamelContext context;

    public TransitionLog(CamelContext context) {
        this.context = context;
    }

    public void record(List<OutboundEvent> transitions) {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        for (OutboundEvent transition : transitions) {
            LOG.info("{}", transition.summary());
            if (registry != null) {
                // The same tag keys as the micrometer component's meters (camelContext): Prometheus refuses one
                // name with two sets of tag keys.
                registry.counter("bridge.transitions", "camelContext", context.getName(),
                        "transition", transition.transition()).increment();
            }
        }
    }
}
