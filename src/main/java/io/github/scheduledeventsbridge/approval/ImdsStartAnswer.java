package io.github.scheduledeventsbridge.approval;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;

/**
 * IMDS's answer to a StartRequests POST: accepted only on a 200. {@code reason} is safe to show a caller,
 * {@code cause} is the detail for logs; both null when accepted.
 */
public record ImdsStartAnswer(boolean accepted, String reason, String cause) {

    /** Route step after the POST. */
    public static ImdsStartAnswer answered(@Header(Exchange.HTTP_RESPONSE_CODE) Integer status) {
        if (status != null && status == 200) {
            return new ImdsStartAnswer(true, null, null);
        }
        String reason = "IMDS refused the approval (HTTP " + status + ")";
        return new ImdsStartAnswer(false, reason, reason);
    }

    /** Route step when the POST failed: no answer (connection refused, timeout, …). */
    public static ImdsStartAnswer unreachable(@ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Throwable failure) {
        String message = failure == null ? null : failure.getMessage();
        String cause = message == null || message.isBlank()
                ? (failure == null ? "unknown" : failure.getClass().getSimpleName()) : message;
        return new ImdsStartAnswer(false, "IMDS could not be reached", cause);
    }
}
