package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResourceFilterTest {

    private final VmIdentity identity = new VmIdentity(Clock.fixed(Instant.parse("2026-11-20T10:15:00Z"), ZoneOffset.UTC));

    private static DetectedTransition about(String... resources) {
        ScheduledEvent event = Events.withResources(Events.scheduled("A"), resources);
        return new DetectedTransition(TransitionType.Scheduled, event, null, "Scheduled", 2);
    }

    private void knownAs(String name) {
        identity.set(new VmIdentity.Vm(name, "id", "/subscriptions/0000/" + name, "westeurope"));
    }

    @Test
    @DisplayName("ALL accepts everything, known identity or not")
    void allAcceptsEverything() {
        ResourceFilter filter = new ResourceFilter(ResourceFilter.Mode.ALL, identity);

        assertThat(filter.accepts(about("other"))).isTrue();
        knownAs("myvm");
        assertThat(filter.accepts(about("other"))).isTrue();
        assertThat(filter.accepts(about())).isTrue();
        assertThat(filter.accepts(about("myvm"))).isTrue();
    }

    @Test
    @DisplayName("OWN accepts only events naming this VM, ignoring case")
    void ownAcceptsOnlyThisVm() {
        ResourceFilter filter = new ResourceFilter(ResourceFilter.Mode.OWN, identity);
        knownAs("WestNO_0");

        assertThat(filter.accepts(about("WestNO_0", "WestNO_1"))).isTrue();
        assertThat(filter.accepts(about("westno_0"))).isTrue();
        assertThat(filter.accepts(about("WESTNO_1", "WestNO_0"))).isTrue();
        assertThat(filter.accepts(about("WestNO_1"))).isFalse();
        assertThat(filter.accepts(about("WestNO_00"))).isFalse();
        assertThat(filter.accepts(about("WestNO"))).isFalse();
        assertThat(filter.accepts(about())).isFalse();
    }

    @Test
    @DisplayName("OWN lets everything through while the identity is unknown, and filters once it is known")
    void ownWithUnknownIdentity() {
        ResourceFilter filter = new ResourceFilter(ResourceFilter.Mode.OWN, identity);

        assertThat(filter.accepts(about("someone-else"))).isTrue();
        assertThat(filter.accepts(about())).isTrue();

        knownAs("myvm");

        assertThat(filter.accepts(about("someone-else"))).isFalse();
    }

    @Test
    @DisplayName("mode() reads the configured value, in any case and with whitespace")
    void modeParsing() {
        assertThat(ResourceFilter.mode("own")).isEqualTo(ResourceFilter.Mode.OWN);
        assertThat(ResourceFilter.mode("ALL")).isEqualTo(ResourceFilter.Mode.ALL);
        assertThat(ResourceFilter.mode(" All ")).isEqualTo(ResourceFilter.Mode.ALL);
        assertThat(ResourceFilter.mode("Own")).isEqualTo(ResourceFilter.Mode.OWN);
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @ValueSource(strings = {"some", "", "owned", "none"})
    @DisplayName("mode() refuses anything else")
    void badMode(String value) {
        assertThatThrownBy(() -> ResourceFilter.mode(value)).isInstanceOf(IllegalArgumentException.class);
    }
}
