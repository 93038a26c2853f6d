package io.github.scheduledeventsbridge.identity;

import java.time.Instant;

/** A bearer token and when it expires; never printed. */
public record AccessToken(String value, Instant expiresOn) {

    /** The value of an {@code Authorization} header. */
    public String authorization() {
        return "Bearer " + value;
    }

    @Override
    public String toString() {
        return "AccessToken[expires " + expiresOn + "]";
    }
}
