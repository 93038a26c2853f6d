package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;

/**
 * The delivery meters on Camel's registry: deliveries, failed attempts and dead letters per sink (counted by
 * {@link DeliveryOutcome}), the spool depth per sink, and every meter present from the start.
 */
public final class DeliveryMetrics {

    /** Every failure kind PollBackoff names, and ok. */
    static final List<String> POLL_OUTCOMES = List.of("ok", "connection", "timeout", "throttled", "server-error",
            "too-large", "invalid-document", "state-write", "io-error");

    private final CamelContext context;
    private final Spool spool;
    private final SinkRegistry sinks;
    private final SpoolInventory inventory;
    private PollBackoff poll;
    /** bridge.deliveries and bridge.dead.letters per sink, each looked up once (a micrometer: step did it per message). */
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public DeliveryMetrics(CamelContext context, Spool spool, SinkRegistry sinks, SpoolInventory inventory) {
        this.context = context;
        this.spool = spool;
        this.sinks = sinks;
        this.inventory = inventory;
    }

    /** For bridge_imds_last_success_timestamp_seconds. */
    public DeliveryMetrics watching(PollBackoff poll) {
        this.poll = poll;
        return this;
    }

    /** The receiver accepted a message: bridge.deliveries{sink=…, outcome="delivered"}. */
    public void delivered(String sinkId) {
        count("bridge.deliveries", "sink", sinkId, "outcome", "delivered");
    }

    /** One failed attempt, tried again: bridge.deliveries{sink=…, outcome="retry"}. */
    public void failedAttempt(String sinkId) {
        count("bridge.deliveries", "sink", sinkId, "outcome", "retry");
    }

    /** A refused message moved to dead-letter/: bridge.dead.letters{sink=…}. */
    public void deadLettered(String sinkId) {
        count("bridge.dead.letters", "sink", sinkId);
    }

    private void count(String name, String... tags) {
        String key = name + " " + String.join(" ", tags);
        Counter counter = counters.get(key);
        if (counter == null) {
            // The registry only on a counter's first use: finding it scans Camel's registry.
            MeterRegistry registry = registry();
            if (registry == null) {
                return;
            }
            counter = counters.computeIfAbsent(key, k -> counter(registry, name, null, tags));
        }
        counter.increment();
    }

    /** With the micrometer: steps' tag keys (camelContext too): Prometheus refuses one name with two sets of keys. */
    private Counter counter(MeterRegistry registry, String name, String description, String... tags) {
        return Counter.builder(name).tags(tags).tag("camelContext", context.getName()).description(description)
                .register(registry);
    }

    /** Where the bean is made: the gauges, and every counter present with 0 from the start. */
    public DeliveryMetrics registerMeters() {
        MeterRegistry registry = registry();
        if (registry == null) {
            return this;
        }
        Gauge.builder("bridge.build.info", () -> 1).tag("version", BridgeVersion.current())
                .tag("commit", BridgeVersion.commit())
                .description("Always 1; the labels name the running version and the commit it was built from")
                .register(registry);
        for (Sink sink : sinks.sinks()) {
            String name = sinks.label(sink.id());
            Gauge.builder("bridge.spool.depth", spool, s -> s.depth(sink.id())).tag("sink", sink.id()).tag("name", name)
                    .description("Undelivered messages waiting on disk for this sink (name: its readable name)")
                    .register(registry);
            Gauge.builder("bridge.spool.oldest.age", spool, s -> oldestAgeSeconds(s, sink.id())).tag("sink", sink.id())
                    .tag("name", name).baseUnit("seconds")
                    .description("How long the oldest undelivered message of this sink has waited; 0 when none")
                    .register(registry);
            List.of("delivered", "retry").forEach(outcome -> counter(registry, "bridge.deliveries",
                    "Delivery attempts per sink: delivered, or retry (failed, tried again)", "sink", sink.id(), "outcome", outcome));
            counter(registry, "bridge.dead.letters",
                    "Messages a receiver refused for bridge.delivery.dead-letter-after, moved to dead-letter/", "sink", sink.id());
        }
        POLL_OUTCOMES.forEach(outcome -> counter(registry, "bridge.imds.polls",
                "IMDS polls by outcome: ok, or the kind of failure", "outcome", outcome));
        Arrays.stream(TransitionType.values()).forEach(transition -> counter(registry, "bridge.transitions",
                "Transitions detected and sent to the sinks", "transition", transition.name()));
        // Buckets, so that a dashboard can show quantiles and an alert can look at slow polls.
        Timer.builder("bridge.imds.poll").tags("camelContext", context.getName())
                .description("IMDS poll latency, request to parsed answer")
                .serviceLevelObjectives(LongStream.of(5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000, 10000)
                        .mapToObj(Duration::ofMillis).toArray(Duration[]::new))
                .register(registry);
        if (poll != null) {
            Gauge.builder("bridge.imds.last.success.timestamp", poll,
                            p -> p.lastAnswer() == null ? 0 : p.lastAnswer().toEpochMilli() / 1000.0)
                    .baseUnit("seconds")
                    .description("Unix time of the last complete IMDS document; 0 until the first")
                    .register(registry);
        }
        return this;
    }

    /** At start, once the spools are surveyed (StartupRecovery): one gauge per directory no configured sink owns. */
    public void registerOrphanedSpoolGauges() {
        MeterRegistry registry = registry();
        if (registry == null) {
            return;
        }
        for (String directory : inventory.orphaned().keySet()) {
            Gauge.builder("bridge.spool.orphaned", inventory, i -> i.orphaned(directory)).tag("directory", directory)
                    .description("Undelivered messages in a spool directory that no configured sink owns (not sent)")
                    .register(registry);
        }
    }

    private static double oldestAgeSeconds(Spool spool, String sinkId) {
        Instant oldest = spool.waitingSince(sinkId);
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, Instant.now()).toMillis() / 1000.0);
    }

    private MeterRegistry registry() {
        return context.getRegistry().findSingleByType(MeterRegistry.class);
    }
}
