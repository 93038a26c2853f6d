package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The remote API's answer to each outcome (docs/approvals.md, "The API"), row by row. */
class ApprovalReplyTest {

    private static final ApprovalOrigin CLIENT = new ApprovalOrigin.Client("10.0.0.5");

    private static ScheduledEvent scheduled(String id) {
        return new ScheduledEvent(id, "Freeze", "VirtualMachine", List.of("vm0"), "Scheduled", "", "", "Platform", 5);
    }

    @Test
    void approved() {
        ApprovalRequest request = new ApprovalRequest(List.of("a"), List.of(scheduled("A")), List.of(), CLIENT);
        assertThat(ApprovalReply.of(new ApprovalOutcome.Approved(request, true)))
                .isEqualTo(new ApprovalReply(200, "{\"approved\":[\"A\"],\"recorded\":true}"));
    }

    @Test
    void approvedBesideOnesApprovedBefore() {
        ApprovalRequest request = new ApprovalRequest(List.of("A", "B"), List.of(scheduled("B")), List.of("A"), CLIENT);
        assertThat(ApprovalReply.of(new ApprovalOutcome.Approved(request, true)))
                .isEqualTo(new ApprovalReply(200, "{\"approved\":[\"B\"],\"alreadyApproved\":[\"A\"],\"recorded\":true}"));
    }

    @Test
    void approvedButNotYetOnDisk() {
        ApprovalRequest request = ApprovalRequest.of(scheduled("A"), CLIENT);
        assertThat(ApprovalReply.of(new ApprovalOutcome.Approved(request, false)).json())
                .startsWith("{\"approved\":[\"A\"],\"recorded\":false,\"note\":\"IMDS accepted; the state cannot be written now");
    }

    @Test
    void refusedWithItsStatus() {
        assertThat(ApprovalReply.of(new ApprovalOutcome.Refused(404, "EventId x is not in the current document", List.of("x"))))
                .isEqualTo(new ApprovalReply(404, "{\"error\":\"EventId x is not in the current document\"}"));
    }

    @Test
    void imdsFailedIs502WithTheSafeReasonOnly() {
        ApprovalRequest request = ApprovalRequest.of(scheduled("A"), CLIENT);
        assertThat(ApprovalReply.of(new ApprovalOutcome.Failed(request, "IMDS could not be reached",
                "Connect to 127.0.0.1:1 failed"))).isEqualTo(new ApprovalReply(502, "{\"error\":\"IMDS could not be reached\"}"));
    }
}
