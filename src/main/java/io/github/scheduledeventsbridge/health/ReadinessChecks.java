package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** The agent's readiness checks, registered with Camel's health-check registry. */
public final class ReadinessChecks {

    private ReadinessChecks() {
    }

    public static void register(CamelContext context, Readiness readiness, PollBackoff poll, Spool spool, SinkRegistry sinks,
                                DeadLetters deadLetters, Clock clock, StorageHealth storage, VmIdentity identity) {
        HealthCheckRegistry registry = HealthCheckRegistry.get(context);
        // A state or spool write that failed: nothing new is recorded or spooled until writing works again.
        registry.register(new Check("storage", result -> storage.problem()));
        registry.register(new Check("imds", result -> {
            Instant last = poll.lastAnswer();
            result.detail("consecutiveFailures", poll.consecutiveFailures());
            result.detail("lastFailure", poll.lastFailureKind());
            // When IMDS last answered with a complete document, and how long ago.
            result.detail("lastSuccess", last == null ? "never" : last.toString());
            if (last != null) {
                result.detail("lastSuccessSecondsAgo", Duration.between(last, clock.instant()).toSeconds());
            }
            return readiness.imds(last, clock.instant());
        }));
        registry.register(new Check("spool", result -> {
            result.detail("depth", spool.totalDepth());
            return readiness.spool(spool.totalDepth());
        }));
        registry.register(new Check("sinks", result -> {
            List<String> problems = new ArrayList<>();
            // Each sink with messages waiting, by its readable name: how many, and for how long the oldest.
            result.detail("sinks", sinks.sinks().size());
            for (Sink sink : sinks.sinks()) {
                String name = sinks.label(sink.id());
                long depth = spool.depth(sink.id());
                Instant oldest = spool.waitingSince(sink.id());
                readiness.sink(name, depth, spool.lastDelivered(sink.id()), oldest, clock.instant()).ifPresent(problems::add);
                if (depth > 0) {
                    result.detail(name + ".waiting", depth);
                    if (oldest != null) {
                        result.detail(name + ".oldestSeconds", Duration.between(oldest, clock.instant()).toSeconds());
                    }
                }
            }
            // Dead letters are reported, not a reason to be unready: the sink delivers again.
            Map<String, Long> dead = deadLetters.bySink();
            result.detail("deadLetters", dead.values().stream().mapToLong(Long::longValue).sum());
            dead.forEach((sink, count) -> {
                if (count > 0) {
                    result.detail("deadLetters." + sink, count);
                }
            });
            return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
        }));
        // Never DOWN: with its IMDS name unknown the agent still forwards every event; the details say what else.
        registry.register(new Check("vm-identity", result -> {
            result.detail("known", identity.isKnown());
            result.detail("source", identity.source());
            if (identity.isKnown()) {
                result.detail("name", identity.vm().name());
            } else {
                result.detail("consequence", "leader-only auto-approval approves nothing; actions treat every event as "
                        + "affecting this VM; the drain signal drains only for events naming this host");
            }
            return Optional.empty();
        }));
    }

    /** Readiness only (a stale IMDS must not get the agent restarted); the body adds details, names any problem. */
    private static final class Check extends AbstractHealthCheck {
        private final Function<HealthCheckResultBuilder, Optional<String>> body;

        Check(String id, Function<HealthCheckResultBuilder, Optional<String>> body) {
            super("bridge", id);
            this.body = body;
        }

        @Override
        public boolean isLiveness() {
            return false;
        }

        @Override
        protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
            body.apply(builder).ifPresentOrElse(problem -> builder.message(problem).down(), builder::up);
        }
    }
}
