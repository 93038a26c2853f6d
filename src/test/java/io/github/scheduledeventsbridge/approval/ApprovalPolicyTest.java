package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The seeds' sample rules, per event type, and the leader rule. */
class ApprovalPolicyTest {

    private static final VmIdentity.Vm ME = new VmIdentity.Vm("WestNO_0", "id", "rid", "loc");

    private static ScheduledEvent event(String type, String source, Integer duration, String status, String... resources) {
        return new ScheduledEvent("E1", type, "VirtualMachine", List.of(resources), status,
                status.equals("Scheduled") ? "Mon, 11 Apr 2022 22:26:58 GMT" : "", "d", source, duration);
    }

    private static ScheduledEvent scheduled(String type, String source, Integer duration) {
        return event(type, source, duration, "Scheduled", "WestNO_0", "WestNO_1");
    }

    @Test
    void withoutRulesNothingIsApproved() {
        ApprovalPolicy none = new ApprovalPolicy(false, null, Set.of(), true);
        assertThat(none.hasRules()).isFalse();
        assertThat(none.approves(scheduled("Reboot", "User", -1), ME)).isEmpty();
    }

    @Test
    void userInitiatedEventsAreApproved() {
        ApprovalPolicy policy = new ApprovalPolicy(true, null, Set.of(), false);
        assertThat(policy.approves(scheduled("Reboot", "User", -1), ME)).contains("user-initiated");
        assertThat(policy.approves(scheduled("Reboot", "user", -1), ME)).contains("user-initiated");
        assertThat(policy.approves(scheduled("Reboot", "Platform", -1), ME)).isEmpty();
    }

    @Test
    void freezesShorterThanNSecondsAreApprovedAsInMicrosoftsSample() {
        ApprovalPolicy policy = new ApprovalPolicy(false, 9, Set.of(), false);
        assertThat(policy.approves(scheduled("Freeze", "Platform", 0), ME)).contains("freeze-shorter-than-9s");
        assertThat(policy.approves(scheduled("Freeze", "Platform", 8), ME)).isPresent();
        assertThat(policy.approves(scheduled("Freeze", "Platform", 9), ME)).as("N itself is not shorter").isEmpty();
        assertThat(policy.approves(scheduled("Freeze", "Platform", -1), ME)).as("unknown duration").isEmpty();
        assertThat(policy.approves(scheduled("Freeze", "Platform", null), ME)).isEmpty();
        assertThat(policy.approves(scheduled("Reboot", "Platform", 5), ME)).as("only Freezes").isEmpty();
    }

    @Test
    void chosenEventTypesAreApprovedWhateverTheirSource() {
        ApprovalPolicy policy = new ApprovalPolicy(false, null, Set.of("Redeploy"), false);
        assertThat(policy.approves(scheduled("Redeploy", "Platform", -1), ME)).contains("event-type-Redeploy");
        assertThat(policy.approves(scheduled("Reboot", "Platform", -1), ME)).isEmpty();
    }

    @Test
    void onlyScheduledEventsAreEverApproved() {
        ApprovalPolicy policy = new ApprovalPolicy(true, 9, Set.of("Reboot"), false);
        assertThat(policy.approves(event("Reboot", "User", -1, "Started", "WestNO_0"), ME)).isEmpty();
    }

    @Test
    void theLeaderIsTheFirstVmOfResources() {
        ApprovalPolicy policy = new ApprovalPolicy(true, null, Set.of(), true);
        assertThat(policy.approves(event("Reboot", "User", -1, "Scheduled", "westno_0", "WestNO_1"), ME))
                .as("first, compared without case").isPresent();
        assertThat(policy.approves(event("Reboot", "User", -1, "Scheduled", "WestNO_1", "WestNO_0"), ME)).isEmpty();
        assertThat(policy.approves(scheduled("Reboot", "User", -1), null)).as("own name unknown").isEqualTo(Optional.empty());
        assertThat(policy.approves(event("Reboot", "User", -1, "Scheduled"), ME)).as("no resources").isEmpty();
    }

    @Test
    void aWithheldApprovalSaysWhyCoverageFirstThenTheLeaderRule() {
        ApprovalPolicy policy = new ApprovalPolicy(true, 9, Set.of(), true);
        ScheduledEvent othersFirst = event("Reboot", "User", -1, "Scheduled", "WestNO_1", "WestNO_0");

        assertThat(policy.decide(scheduled("Reboot", "Platform", -1), null)).get()
                .extracting(ApprovalPolicy.Decision::withheld).as("not covered, whoever leads")
                .isEqualTo(ApprovalPolicy.Withheld.NOT_COVERED);
        assertThat(policy.decide(scheduled("Freeze", "Platform", 30), ME)).get().satisfies(d -> {
            assertThat(d.withheld()).isEqualTo(ApprovalPolicy.Withheld.NOT_COVERED);
            assertThat(d.why()).contains("Platform Freeze of 30 s");
        });
        assertThat(policy.decide(scheduled("Reboot", "User", -1), null)).get()
                .extracting(ApprovalPolicy.Decision::withheld).isEqualTo(ApprovalPolicy.Withheld.IDENTITY_UNKNOWN);
        assertThat(policy.decide(othersFirst, ME)).get().satisfies(d -> {
            assertThat(d.withheld()).isEqualTo(ApprovalPolicy.Withheld.NOT_LEADER);
            assertThat(d.why()).contains("WestNO_0").contains("WestNO_1");
            assertThat(d.approves()).isFalse();
        });
        assertThat(policy.decide(scheduled("Reboot", "User", -1), ME)).get()
                .extracting(ApprovalPolicy.Decision::rule).isEqualTo("user-initiated");
        assertThat(policy.decide(event("Reboot", "User", -1, "Started", "WestNO_0"), ME)).as("nothing to decide").isEmpty();
    }
}
