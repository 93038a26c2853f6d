package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.BridgeVersion;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * The delivery metrics that no route step can count: failed attempts (called by the sink error
 * handler before each retry) and the spool depth per sink, as Micrometer meters on Camel's registry.
 */
public final class DeliveryMetrics implements Processor {

    private final CamelContext context;
    private final Spool spool;
    private final SinkRegistry sinks;
    private final SpoolInventory inventory;

    private final OutageLog outageLog;

    public DeliveryMetrics(CamelContext context, Spool spool, SinkRegistry sinks, SpoolInventory inventory,
                           OutageLog outageLog) {
        this.outageLog = outageLog;
        this.context = context;
        this.spool = spool;
        this.sinks = sinks;
        this.inventory = inventory;
    }

    /** onRedelivery: one failed attempt of the sink this exchange belongs to. */
    @Override
    public void process(Exchange exchange) {
        SpoolEntry entry = exchange.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class);
        MeterRegistry registry = registry();
        if (entry != null && outageLog != null) {
            Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
            outageLog.attemptFailed(entry.sinkId(), cause != null ? cause : exchange.getException());
        }
        if (registry != null && entry != null) {
            // Same tag keys as the route's micrometer:counter steps, which add camelContext: Prometheus
            // refuses one name with two sets of tag keys.
            registry.counter("bridge.deliveries", "camelContext", context.getName(), "sink", entry.sinkId(),
                    "outcome", "retry").increment();
        }
    }

    /**
     * Route step at start: bridge.spool.depth{sink=…}, read live from the spool, and bridge.spool.orphaned{directory=…}
     * for spool directories no configured sink owns (found by {@link SpoolInventory#survey}).
     */
    public void registerSpoolGauges() {
        MeterRegistry registry = registry();
        if (registry == null) {
            return;
        }
        Gauge.builder("bridge.build.info", () -> 1).tag("version", BridgeVersion.current())
                .tag("commit", BridgeVersion.commit())
                .description("Always 1; the labels name the running version and the commit it was built from")
                .register(registry);
        for (Sink sink : sinks.sinks()) {
            Gauge.builder("bridge.spool.depth", spool, s -> s.depth(sink.id())).tag("sink", sink.id())
                    .description("Undelivered messages waiting on disk").register(registry);
        }
        for (String directory : inventory.orphaned().keySet()) {
            Gauge.builder("bridge.spool.orphaned", inventory, i -> i.orphaned(directory)).tag("directory", directory)
                    .description("Undelivered messages in a spool directory that no configured sink owns (not sent)")
                    .register(registry);
        }
    }

    private MeterRegistry registry() {
        return context.getRegistry().findSingleByType(MeterRegistry.class);
    }
}
