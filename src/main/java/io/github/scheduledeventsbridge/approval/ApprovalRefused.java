package io.github.scheduledeventsbridge.approval;

/** An approval request turned away with an HTTP status (docs/approvals.md, "The API") and a reason safe to show the caller. */
public class ApprovalRefused extends RuntimeException {

    private final int status;

    public ApprovalRefused(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
