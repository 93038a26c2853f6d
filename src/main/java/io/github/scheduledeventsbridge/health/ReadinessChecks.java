package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** The agent's readiness checks, registered with Camel's health-check registry. */
public final class ReadinessChecks {

    private ReadinessChecks() {
    }

    public static void register(CamelContext context, Readiness readiness, PollBackoff poll, Spool spool, SinkRegistry sinks,
                                DeadLetters deadLetters, Clock clock, StorageHealth storage, VmIdentity identity) {
        HealthCheckRegistry registry = HealthCheckRegistry.get(context);
        // A state or spool write that failed: nothing new is recorded or spooled until writing works again.
        registry.register(new Check("storage", builder -> report(builder, storage.problem(), Map.of())));
        registry.register(new Check("imds", builder -> {
            Instant last = poll.lastAnswer();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("consecutiveFailures", poll.consecutiveFailures());
            details.put("lastFailure", poll.lastFailureKind());
            // When IMDS last answered with a complete document, and how long ago.
            details.put("lastSuccess", last == null ? "never" : last.toString());
            if (last != null) {
                details.put("lastSuccessSecondsAgo", Duration.between(last, clock.instant()).toSeconds());
            }
            report(builder, readiness.imds(last, clock.instant()), details);
        }));
        registry.register(new Check("spool", builder -> report(builder, readiness.spool(spool.totalDepth()),
                Map.of("depth", spool.totalDepth()))));
        registry.register(new Check("sinks", builder -> {
            List<String> problems = new ArrayList<>();
            // Each sink with messages waiting, by its readable name: how many, and for how long the oldest.
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("sinks", sinks.sinks().size());
            for (Sink sink : sinks.sinks()) {
                String name = sinks.label(sink.id());
                long depth = spool.depth(sink.id());
                Instant oldest = spool.waitingSince(sink.id());
                readiness.sink(name, depth, spool.lastDelivered(sink.id()), oldest, clock.instant()).ifPresent(problems::add);
                if (depth > 0) {
                    details.put(name + ".waiting", depth);
                    if (oldest != null) {
                        details.put(name + ".oldestSeconds", Duration.between(oldest, clock.instant()).toSeconds());
                    }
                }
            }
            // Dead letters are reported, not a reason to be unready: the sink delivers again (details:
            // deadLetters = all sinks, deadLetters.<sink> = per sink with any).
            Map<String, Long> dead = deadLetters.bySink();
            details.put("deadLetters", dead.values().stream().mapToLong(Long::longValue).sum());
            dead.forEach((sink, count) -> {
                if (count > 0) {
                    details.put("deadLetters." + sink, count);
                }
            });
            report(builder, problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems)), details);
        }));
        // Never DOWN: with its IMDS name unknown the agent still forwards every event, but leader-only
        // auto-approval, actions and the drain signal act as the details say until it is known.
        registry.register(new Check("vm-identity", builder -> {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("known", identity.isKnown());
            details.put("source", identity.source());
            if (identity.isKnown()) {
                details.put("name", identity.vm().name());
            } else {
                details.put("consequence", "leader-only auto-approval approves nothing; actions treat every event as "
                        + "affecting this VM; the drain signal drains only for events naming this host");
            }
            report(builder, Optional.empty(), details);
        }));
    }

    private static void report(HealthCheckResultBuilder builder, Optional<String> problem, Map<String, Object> details) {
        builder.details(details);
        problem.ifPresentOrElse(p -> builder.message(p).down(), builder::up);
    }

    /** A readiness-only check (a stale IMDS must not get the agent restarted, only flagged). */
    private static final class Check extends AbstractHealthCheck {
        private final Consumer<HealthCheckResultBuilder> body;

        Check(String id, Consumer<HealthCheckResultBuilder> body) {
            super("bridge", id);
            this.body = body;
        }

        @Override
        public boolean isLiveness() {
            return false;
        }

        @Override
        protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
            body.accept(builder);
        }
    }
}
