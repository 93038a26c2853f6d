package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.testing.SampleEvents;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TransitionSummaryTest {

    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @Test
    void scheduledNamesTypeVmAndTimeOnTheSameDay() {
        var ce = SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot", NOT_BEFORE, "vm-3", "vm-3");
        assertThat(TransitionSummary.headline(ce)).isEqualTo("Reboot of vm-3 scheduled not before 22:26 UTC");
    }

    @Test
    void aNotBeforeOnAnotherDayCarriesTheDate() {
        var ce = SampleEvents.cloudEvent(TransitionType.Scheduled, "Redeploy", "Wed, 13 Apr 2022 06:05:00 GMT",
                "vm-3", "vm-3");
        assertThat(TransitionSummary.headline(ce)).isEqualTo("Redeploy of vm-3 scheduled not before 13 Apr 06:05 UTC");
    }

    @Test
    void eachTransitionReadsNaturally() {
        assertThat(TransitionSummary.headline(SampleEvents.cloudEvent(TransitionType.Started, "Freeze", "", "vm-3", "vm-3")))
                .isEqualTo("Freeze of vm-3 started");
        assertThat(TransitionSummary.headline(SampleEvents.cloudEvent(TransitionType.Completed, "Freeze", "", "vm-3", "vm-3")))
                .isEqualTo("Freeze of vm-3 completed");
        assertThat(TransitionSummary.headline(SampleEvents.cloudEvent(TransitionType.Cancelled, "Reboot", NOT_BEFORE, "vm-3", "vm-3")))
                .isEqualTo("Reboot of vm-3 cancelled");
        assertThat(TransitionSummary.headline(SampleEvents.cloudEvent(TransitionType.Rescheduled, "Reboot", NOT_BEFORE, "vm-3", "vm-3")))
                .isEqualTo("Reboot of vm-3 rescheduled to not before 22:26 UTC");
    }

    @Test
    void sharedEventsNameThisVmFirstAndCountTheOthers() {
        var ce = SampleEvents.cloudEvent(TransitionType.Started, "Freeze", "", "WestNO_1", "WestNO_0", "WestNO_1", "WestNO_2");
        assertThat(TransitionSummary.headline(ce)).isEqualTo("Freeze of WestNO_1 and 2 more started");
    }

    @Test
    void withoutVmIdentityTheResourcesAreNamedAndLongListsShortened() {
        var ce = SampleEvents.cloudEvent(TransitionType.Started, "Reboot", "", null, "a", "b", "c", "d", "e");
        assertThat(TransitionSummary.headline(ce)).isEqualTo("Reboot of a, b, c and 2 more started");
    }

    @Test
    void factsCarryTheEventIdAndOnlyPresentValues() {
        var facts = TransitionSummary.facts(SampleEvents.cloudEvent(TransitionType.Completed, "Freeze", "", "vm-3", "vm-3"));
        assertThat(facts).containsEntry("Event ID", "C7061BAC-AFDC-4513-B24B-AA5F13A16123")
                .containsEntry("Transition", "Completed")
                .containsEntry("Status", "no longer listed (was Started)")
                .containsEntry("Duration", "5 s")
                .containsEntry("Reported by", "vm-3 (norwayeast)")
                .doesNotContainKey("Not before");
    }
}
