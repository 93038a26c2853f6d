package io.github.scheduledeventsbridge.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;

import java.util.concurrent.TimeUnit;

/**
 * bridge.imds.poll (latency) and bridge.imds.polls{outcome=ok} as plain calls on meters looked up once: a
 * micrometer: step looks its meter up on every message, more garbage than the rest of an idle poll. Registered at
 * start by DeliveryMetrics; used by the poll thread only.
 */
public final class PollMetrics {

    private final CamelContext context;
    private Timer latency;
    private Counter ok;
    private boolean resolved;
    private long started;

    public PollMetrics(CamelContext context) {
        this.context = context;
    }

    /** Route step just before the GET. */
    public void started() {
        started = System.nanoTime();
    }

    /** Route step just after the answer arrived (whatever it is; a GET that failed is not timed). */
    public void answered() {
        if (resolved()) {
            latency.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }

    /** Route step once the answer is a document: bridge.imds.polls{outcome=ok}. */
    public void succeeded() {
        if (resolved()) {
            ok.increment();
        }
    }

    /** Looked up at the first poll: DeliveryMetrics registered them where it was made, before any route started. */
    private boolean resolved() {
        if (!resolved) {
            resolved = true;
            MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
            if (registry != null) {
                latency = Timer.builder("bridge.imds.poll").tags("camelContext", context.getName()).register(registry);
                ok = Counter.builder("bridge.imds.polls").tags("camelContext", context.getName(), "outcome", "ok")
                        .register(registry);
            }
        }
        return latency != null;
    }
}
