package io.github.scheduledeventsbridge.approvalqueue;

import java.io.IOException;
import java.time.Duration;

/**
 * The queue service refused or did not answer: one clear line (status, the service's error code, what it means
 * here), and how long it asked us to wait (503 with Retry-After), if it did.
 */
public final class QueueFailure extends IOException {

    private final int status;
    private final String errorCode;
    private final Duration retryAfter;

    public QueueFailure(String message, int status, String errorCode, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.errorCode = errorCode;
        this.retryAfter = retryAfter;
    }

    /** The HTTP status, 0 when there was no answer (or no token to send). */
    public int status() {
        return status;
    }

    public String errorCode() {
        return errorCode;
    }

    /** What the service asked for (Retry-After), or null. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
