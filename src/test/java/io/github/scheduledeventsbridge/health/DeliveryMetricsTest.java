package io.github.scheduledeventsbridge.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The delivery counter is a lane step, run once per delivered message: it must not search Camel's registry each time. */
class DeliveryMetricsTest {

    @TempDir
    Path state;

    @Test
    void deliveredCountsPerSinkAndLooksTheRegistryUpOncePerSink() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.getCamelContextExtension().setRegistry(new DefaultRegistry() {
                @Override
                public <T> T findSingleByType(Class<T> type) {
                    if (type == MeterRegistry.class) {
                        lookups.incrementAndGet();
                    }
                    return super.findSingleByType(type);
                }
            });
            MeterRegistry meters = new SimpleMeterRegistry();
            camel.getRegistry().bind("meters", meters);
            DeliveryMetrics metrics = new DeliveryMetrics(camel, new Spool(state), new SinkRegistry(List.of()), null);

            for (int i = 0; i < 100; i++) {
                metrics.delivered(i % 2 == 0 ? "webhook-a" : "webhook-b");
            }

            assertThat(meters.get("bridge.deliveries").tag("sink", "webhook-a").tag("outcome", "delivered").counter().count())
                    .isEqualTo(50.0);
            assertThat(meters.get("bridge.deliveries").tag("sink", "webhook-b").counter().count()).isEqualTo(50.0);
            assertThat(lookups.get()).as("registry look-ups for 100 deliveries to 2 sinks").isEqualTo(2);
        }
    }
}
