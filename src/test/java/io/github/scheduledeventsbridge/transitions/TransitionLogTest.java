package io.github.scheduledeventsbridge.transitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

class TransitionLogTest {

    @Test
    void countsEachTransitionByTypeWithTheSameTagKeysAsCamelsMeters() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            MeterRegistry registry = new SimpleMeterRegistry();
            context.getRegistry().bind("registry", registry);
            new TransitionLog(context).record(List.of(
                    SampleEvents.outbound(1, TransitionType.Scheduled, "Reboot", "vm-1"),
                    SampleEvents.outbound(2, TransitionType.Scheduled, "Freeze", "vm-1"),
                    SampleEvents.outbound(3, TransitionType.Started, "Reboot", "vm-1")));
            assertThat(registry.get("bridge.transitions").tag("transition", "Scheduled")
                    .tag("camelContext", context.getName()).counter().count()).isEqualTo(2.0);
            assertThat(registry.get("bridge.transitions").tag("transition", "Started").counter().count()).isEqualTo(1.0);
            assertThat(registry.find("bridge.transitions").tag("transition", "Completed").counter()).isNull();
        }
    }

    @Test
    void withoutAMeterRegistryItOnlyLogs() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            assertThatCode(() -> new TransitionLog(context).record(List.of(
                    SampleEvents.outbound(1, TransitionType.Cancelled, "Reboot", "vm-1")))).doesNotThrowAnyException();
        }
    }
}
