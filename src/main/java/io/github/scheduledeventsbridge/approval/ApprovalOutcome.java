package io.github.scheduledeventsbridge.approval;

import java.util.List;

/** What became of an approval: approved, refused for good, or failed for now (nothing approved: try again later). */
public sealed interface ApprovalOutcome {

    /**
     * IMDS accepted {@code request.events()}; their Approved transitions are recorded ({@code recorded}: on disk
     * already, else kept in memory and written with the next poll).
     */
    record Approved(ApprovalRequest request, boolean recorded) implements ApprovalOutcome {
        /** The EventIds approved now. */
        public List<String> approved() {
            return request.sent();
        }

        /** The EventIds this agent had approved before: not sent again. */
        public List<String> alreadyApproved() {
            return request.alreadyApproved();
        }
    }

    /**
     * Never to be approved as asked: the body is not an approval (400), names an event that is not listed (404), or
     * events that are no longer Scheduled or were all approved by this agent already (409). {@code status} is the
     * remote API's (docs/approvals.md); {@code eventIds} the ones the body named, or empty when it was not understood.
     */
    record Refused(int status, String reason, List<String> eventIds) implements ApprovalOutcome {
    }

    /**
     * Nothing was approved, for now: IMDS could not be reached or did not answer 200. Asking again later is right (the
     * event is checked again then). {@code reason} is safe to show a caller; {@code cause} is the detail for logs.
     */
    record Failed(ApprovalRequest request, String reason, String cause) implements ApprovalOutcome {
    }
}
