package io.github.scheduledeventsbridge.approval;

import java.util.List;

/** An approval request turned away with an HTTP status (docs/approvals.md, "The API") and a reason safe to show the caller. */
public class ApprovalRefused extends RuntimeException {

    private final int status;
    private final List<String> eventIds;

    public ApprovalRefused(int status, String reason) {
        this(status, reason, List.of());
    }

    /** {@code eventIds}: the EventIds the (authenticated) body named, for the audit line. */
    public ApprovalRefused(int status, String reason, List<String> eventIds) {
        super(reason, null, false, false);
        this.status = status;
        this.eventIds = List.copyOf(eventIds);
    }

    public int status() {
        return status;
    }

    public List<String> eventIds() {
        return eventIds;
    }
}
