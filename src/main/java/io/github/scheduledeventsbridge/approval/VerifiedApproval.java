package io.github.scheduledeventsbridge.approval;

/**
 * An approval body whose sender is proven (signature and timestamp checked by the channel it came in on), not yet
 * checked against the current document: {@code {"EventId": …}} or {@code {"StartRequests": [{"EventId": …}, …]}}.
 */
public record VerifiedApproval(byte[] body, ApprovalOrigin origin) {
}
