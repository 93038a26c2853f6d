package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.BridgeVersion;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;

/**
 * The delivery meters on Camel's registry: deliveries, failed attempts and dead letters per sink (counted by
 * {@link DeliveryOutcome}), the spool depth per sink, and every meter present from the start.
 */
public final class DeliveryMetrics {

    private final CamelContext context;
    private final Spool spool;
    private final SinkRegistry sinks;
    private final SpoolInventory inventory;

    public DeliveryMetrics(CamelContext context, Spool spool, SinkRegistry sinks, SpoolInventory inventory) {
        this.context = context;
        this.spool = spool;
        this.sinks = sinks;
        this.inventory = inventory;
    }

    /** bridge.deliveries and bridge.dead.letters per sink, each looked up once (a micrometer: step did it per message). */
    private final java.util.Map<String, Counter> counters = new java.util.concurrent.ConcurrentHashMap<>();

    /** The receiver accepted a message: bridge.deliveries{sink=…, outcome="delivered"}. */
    public void delivered(String sinkId) {
        count("bridge.deliveries", sinkId, "delivered");
    }

    /** One failed attempt, tried again: bridge.deliveries{sink=…, outcome="retry"}. */
    public void failedAttempt(String sinkId) {
        count("bridge.deliveries", sinkId, "retry");
    }

    /** A refused message moved to dead-letter/: bridge.dead.letters{sink=…}. */
    public void deadLettered(String sinkId) {
        count("bridge.dead.letters", sinkId, null);
    }

    private void count(String name, String sinkId, String outcome) {
        String key = name + " " + sinkId + " " + outcome;
        Counter counter = counters.get(key);
        if (counter == null) {
            // The registry only on a counter's first use: finding it scans Camel's registry.
            MeterRegistry registry = registry();
            if (registry == null) {
                return;
            }
            // The tag keys of registerSpoolGauges (camelContext too): Prometheus refuses one name with two sets of keys.
            counter = counters.computeIfAbsent(key, k -> {
                Counter.Builder builder = Counter.builder(name).tags("camelContext", context.getName(), "sink", sinkId);
                return (outcome == null ? builder : builder.tag("outcome", outcome)).register(registry);
            });
        }
        counter.increment();
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
        String camel = context.getName();
        for (Sink sink : sinks.sinks()) {
            String name = sinks.label(sink.id());
            Gauge.builder("bridge.spool.depth", spool, s -> s.depth(sink.id())).tag("sink", sink.id()).tag("name", name)
                    .description("Undelivered messages waiting on disk for this sink (name: its readable name)")
                    .register(registry);
            Gauge.builder("bridge.spool.oldest.age", spool, s -> oldestAgeSeconds(s, sink.id())).tag("sink", sink.id())
                    .tag("name", name).baseUnit("seconds")
                    .description("How long the oldest undelivered message of this sink has waited; 0 when none")
                    .register(registry);
            // Present from the start with 0, with the route steps' tag keys (camelContext added by the component).
            for (String outcome : List.of("delivered", "retry")) {
                Counter.builder("bridge.deliveries").tags("camelContext", camel, "sink", sink.id(), "outcome", outcome)
                        .description("Delivery attempts per sink: delivered, or retry (failed, tried again)")
                        .register(registry);
            }
            Counter.builder("bridge.dead.letters").tags("camelContext", camel, "sink", sink.id())
                    .description("Messages a receiver refused for bridge.delivery.dead-letter-after, moved to dead-letter/")
                    .register(registry);
        }
        for (String outcome : POLL_OUTCOMES) {
            Counter.builder("bridge.imds.polls").tags("camelContext", camel, "outcome", outcome)
                    .description("IMDS polls by outcome: ok, or the kind of failure").register(registry);
        }
        for (TransitionType transition : TransitionType.values()) {
            Counter.builder("bridge.transitions").tags("camelContext", camel, "transition", transition.name())
                    .description("Transitions detected and sent to the sinks").register(registry);
        }
        for (String outcome : List.of("approved", "auto-approved", "auto-failed")) {
            Counter.builder("bridge.approvals").tags("camelContext", camel, "outcome", outcome)
                    .description(io.github.scheduledeventsbridge.approval.WithheldApprovals.HELP)
                    .register(registry);
        }
        // Buckets, so that a dashboard can show quantiles and an alert can look at slow polls.
        Timer.builder("bridge.imds.poll").tags("camelContext", camel)
                .description("IMDS poll latency, request to parsed answer")
                .serviceLevelObjectives(Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
                        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
                        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10))
                .register(registry);
        if (poll != null) {
            Gauge.builder("bridge.imds.last.success.timestamp", poll,
                            p -> p.lastAnswer() == null ? 0 : p.lastAnswer().toEpochMilli() / 1000.0)
                    .baseUnit("seconds")
                    .description("Unix time of the last complete IMDS document; 0 until the first")
                    .register(registry);
        }
        for (String directory : inventory.orphaned().keySet()) {
            Gauge.builder("bridge.spool.orphaned", inventory, i -> i.orphaned(directory)).tag("directory", directory)
                    .description("Undelivered messages in a spool directory that no configured sink owns (not sent)")
                    .register(registry);
        }
    }

    /** Every failure kind PollBackoff names, and ok. */
    static final List<String> POLL_OUTCOMES = List.of("ok", "connection", "timeout", "throttled", "server-error",
            "too-large", "invalid-document", "state-write", "io-error");

    private PollBackoff poll;

    /** For bridge_imds_last_success_timestamp_seconds. */
    public DeliveryMetrics watching(PollBackoff poll) {
        this.poll = poll;
        return this;
    }

    private static double oldestAgeSeconds(Spool spool, String sinkId) {
        Instant oldest = spool.waitingSince(sinkId);
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, Instant.now()).toMillis() / 1000.0);
    }

    private MeterRegistry registry() {
        return context.getRegistry().findSingleByType(MeterRegistry.class);
    }
}
