package io.github.scheduledeventsbridge.management;

import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The anonymous probes' answers (status only), each computed at most once per {@link #MAX_AGE}: Camel's health checks
 * take a lock, so a flood of probes would otherwise queue every thread of the port behind it. A DOWN still shows
 * within a second; a probe waits for at most one run of the checks.
 */
final class ProbeAnswers {

    static final Duration MAX_AGE = Duration.ofSeconds(1);

    private record Cached(HealthReport report, long at) {
    }

    private final CamelContext context;
    private final LongSupplier nanoClock;
    private final Map<HealthCheck.Kind, Cached> cached = new EnumMap<>(HealthCheck.Kind.class);

    ProbeAnswers(CamelContext context, LongSupplier nanoClock) {
        this.context = context;
        this.nanoClock = nanoClock;
    }

    synchronized HealthReport status(HealthCheck.Kind kind) {
        Cached last = cached.get(kind);
        long now = nanoClock.getAsLong();
        if (last == null || now - last.at >= MAX_AGE.toNanos()) {
            last = new Cached(HealthReport.of(context, kind, false), nanoClock.getAsLong());
            cached.put(kind, last);
        }
        return last.report;
    }
}
