package io.github.scheduledeventsbridge.management;

import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The anonymous probes' cached status, on a real Camel context with a check of the test's own and a hand-driven clock. */
class ProbeAnswersTest {

    private final AtomicLong now = new AtomicLong(-7_000_000_000L); // nanoTime may be negative
    private final AtomicBoolean up = new AtomicBoolean(true);
    private final AtomicInteger runs = new AtomicInteger();
    private DefaultCamelContext context;
    private ProbeAnswers probes;

    @BeforeEach
    void start() {
        context = new DefaultCamelContext();
        HealthCheckRegistry.get(context).register(new AbstractHealthCheck("test", "switch") {
            @Override
            public boolean isLiveness() {
                return true;
            }

            @Override
            protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
                runs.incrementAndGet();
                if (up.get()) {
                    builder.up();
                } else {
                    builder.down();
                }
            }
        });
        context.start();
        probes = new ProbeAnswers(context, now::get);
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void theChecksRunAtMostOncePerSecondAndADownShowsWithinASecond() {
        assertThat(probes.status(HealthCheck.Kind.LIVENESS).json()).isEqualTo("{\"status\":\"UP\"}");
        int first = runs.get();
        assertThat(first).isPositive();
        for (int i = 0; i < 1_000; i++) {
            assertThat(probes.status(HealthCheck.Kind.LIVENESS).up()).isTrue();
        }
        assertThat(runs.get()).as("a thousand probes within the second").isEqualTo(first);

        up.set(false);
        now.addAndGet(ProbeAnswers.MAX_AGE.minusMillis(1).toNanos());
        assertThat(probes.status(HealthCheck.Kind.LIVENESS).up()).as("still the answer of less than a second ago").isTrue();
        now.addAndGet(Duration.ofMillis(1).toNanos());
        HealthReport down = probes.status(HealthCheck.Kind.LIVENESS);
        assertThat(down.up()).isFalse();
        assertThat(down.json()).isEqualTo("{\"status\":\"DOWN\"}");
        assertThat(probes.status(HealthCheck.Kind.READINESS).up()).as("each kind its own answer").isFalse();
    }
}
