package io.github.scheduledeventsbridge.identity;

import java.io.IOException;

/**
 * No token to be had: the identity endpoint did not answer, or answered with an error. The message is one clear line
 * for the log (the endpoint's own error and its description, never a token); {@code status} is the endpoint's HTTP
 * status, 0 when it did not answer.
 */
public final class TokenUnavailableException extends IOException {

    private final int status;

    public TokenUnavailableException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }

    /**
     * True when asking again later may help; false when the VM has no such identity (400: "Identity not found", a
     * wrong client id): the configuration or the VM's identity assignment must change first.
     */
    public boolean transientFailure() {
        return status != 400 && status != 403;
    }
}
