package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class SinkFilterTest {

    @Test
    void emptySetsLetEverythingThrough() {
        assertThat(SinkFilter.all().test(SampleEvents.outbound(1, TransitionType.Completed, "Freeze", "a"))).isTrue();
    }

    @Test
    void theDocumentedEmailDefaultKeepsImpactfulScheduledAndStartedOnly() {
        SinkFilter email = new SinkFilter(Set.of("Scheduled", "Started"),
                Set.of("Reboot", "Redeploy", "Preempt", "Terminate"), false, null);
        assertThat(email.test(SampleEvents.outbound(1, TransitionType.Scheduled, "Reboot", "a"))).isTrue();
        assertThat(email.test(SampleEvents.outbound(1, TransitionType.Started, "Terminate", "a"))).isTrue();
        assertThat(email.test(SampleEvents.outbound(1, TransitionType.Completed, "Reboot", "a"))).isFalse();
        assertThat(email.test(SampleEvents.outbound(1, TransitionType.Rescheduled, "Redeploy", "a"))).isFalse();
        assertThat(email.test(SampleEvents.outbound(1, TransitionType.Scheduled, "Freeze", "a"))).isFalse();
    }

    @Test
    void namesAreMatchedWithoutRegardToCase() {
        SinkFilter filter = new SinkFilter(Set.of("STARTED"), Set.of("reboot"), false, null);
        assertThat(filter.test(SampleEvents.outbound(1, TransitionType.Started, "Reboot", "a"))).isTrue();
        assertThat(filter.test(SampleEvents.outbound(1, TransitionType.Scheduled, "Reboot", "a"))).isFalse();
    }

    @Test
    void ownKeepsOnlyEventsNamingThisVmOnceItsNameIsKnown() {
        VmIdentity identity = new VmIdentity(Clock.systemUTC());
        SinkFilter own = new SinkFilter(Set.of(), Set.of(), true, identity);
        var mine = SampleEvents.outbound(1, TransitionType.Scheduled, "Reboot", "VM-1", "vm-2");
        var theirs = SampleEvents.outbound(2, TransitionType.Scheduled, "Reboot", "vm-2");
        assertThat(own.test(theirs)).as("name unknown: forward rather than drop").isTrue();
        identity.set(new VmIdentity.Vm("vm-1", "id", "rid", "loc"));
        assertThat(own.test(mine)).isTrue();
        assertThat(own.test(theirs)).isFalse();
    }

    @Test
    void describesItselfForTheStartupLog() {
        assertThat(new SinkFilter(Set.of("Started"), Set.of(), true, null).toString())
                .contains("started").contains("event types all").contains("resources own");
    }
}
