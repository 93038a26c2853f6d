package io.github.scheduledeventsbridge.imds;

/** IMDS answered with a status other than 200. {@code retryAfter} is the Retry-After header, if any. */
public class ImdsStatusException extends RuntimeException {

    private final int status;
    private final String retryAfter;

    public ImdsStatusException(int status, String retryAfter) {
        this(status, retryAfter, null);
    }

    /** With a few words on what was wrong with the answer, when the status alone does not say it. */
    public ImdsStatusException(int status, String retryAfter, String detail) {
        super("IMDS answered HTTP " + status + (detail == null ? "" : " (" + detail + ")"));
        this.status = status;
        this.retryAfter = retryAfter;
    }

    public int status() {
        return status;
    }

    public String retryAfter() {
        return retryAfter;
    }
}
