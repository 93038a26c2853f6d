package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each outcome of an attempt, row by row: what it does to the spool, the outage log and the meters. */
class DeliveryOutcomeTest {

    @TempDir
    Path state;

    private final Sink sink = new Sink("webhook-1", "webhook http://hooks.example.com/x", "tpl", Sink.Target.NONE, e -> true);

    @Test
    void failedThenDeliveredThenDeadLettered() throws Exception {
        Clock clock = Clock.systemUTC();
        try (DefaultCamelContext camel = new DefaultCamelContext(); LogCapture log = LogCapture.install()) {
            MeterRegistry meters = new SimpleMeterRegistry();
            camel.getRegistry().bind("meters", meters);
            Spool spool = new Spool(state.resolve("spool"), clock);
            SinkRegistry sinks = new SinkRegistry(List.of(sink));
            DeadLetters deadLetters = new DeadLetters(spool, clock);
            OutageLog outageLog = new OutageLog(new OutageLog.Settings(Duration.ofMinutes(5)), sinks, spool,
                    new PollBackoff(clock, Duration.ofSeconds(1), Duration.ofMinutes(1)), clock);
            DeliveryMetrics metrics = new DeliveryMetrics(camel, spool, sinks,
                    new SpoolInventory(spool.root(), sinks, deadLetters, Map.of()));
            DeliveryOutcome outcome = new DeliveryOutcome(spool, deadLetters, outageLog, metrics);
            byte[] message = "{}".getBytes(StandardCharsets.UTF_8);
            SpoolEntry first = spool.store(sink, 1, message);
            SpoolEntry second = spool.store(sink, 2, message);

            outcome.attemptFailed(sink, first, new RuntimeException("HTTP 503"));
            assertThat(log.lines()).filteredOn(l -> l.contains("is failing")).singleElement().asString().contains("HTTP 503");
            assertThat(count(meters, "bridge.deliveries", "retry")).isEqualTo(1.0);

            outcome.delivered(sink, first);
            assertThat(first.file()).doesNotExist();
            assertThat(spool.depth(sink.id())).isEqualTo(1);
            assertThat(log.lines()).filteredOn(l -> l.contains("recovered")).hasSize(1);
            assertThat(count(meters, "bridge.deliveries", "delivered")).isEqualTo(1.0);

            outcome.deadLettered(sink, second, new RuntimeException("HTTP 410"));
            assertThat(second.file()).doesNotExist();
            assertThat(second.file().getParent().resolve(DeadLetters.DIRECTORY).resolve(second.file().getFileName())).exists();
            assertThat(spool.depth(sink.id())).isZero();
            assertThat(meters.get("bridge.dead.letters").tag("sink", sink.id()).counter().count()).isEqualTo(1.0);
        }
    }

    private static double count(MeterRegistry meters, String name, String outcome) {
        return meters.get(name).tag("sink", "webhook-1").tag("outcome", outcome).counter().count();
    }
}
