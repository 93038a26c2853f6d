package io.github.scheduledeventsbridge.imds;

/** IMDS answered with a status other than 200. {@code retryAfter} is the Retry-After header, if any. */
public class ImdsStatusException extends RuntimeException {

    private final int status;
    private final String retryAfter;

    public ImdsStatusException(int status, String retryAfter) {
        super("IMDS answered HTTP " + status);
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
