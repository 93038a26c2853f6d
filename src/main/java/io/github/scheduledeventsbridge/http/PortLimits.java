package io.github.scheduledeventsbridge.http;

import java.time.Duration;

/**
 * The bounds of one listening port (docs/security.md has each port's); every port also allows a quarter of its
 * connections (at least 4) per client address and 8 KiB of request line and headers; at the cap, the network
 * ({@link ClientNetwork}) with the most connections gives up its oldest idle one.
 *
 * @param maxConnections open connections; one more closes the oldest idle one
 * @param maxBodyBytes   request body (413 beyond, as soon as it is announced or counted); 0 = no body
 * @param requestTimeout from connecting (or from the previous answer) until the whole request has arrived
 * @param idleTimeout    silence allowed while a request is being answered (the answer may wait for IMDS)
 */
public record PortLimits(int maxConnections, long maxBodyBytes, Duration requestTimeout, Duration idleTimeout) {

    public PortLimits {
        if (maxConnections < 1 || maxBodyBytes < 0 || requestTimeout.isNegative() || requestTimeout.isZero()
                || idleTimeout.compareTo(requestTimeout) < 0) {
            throw new IllegalArgumentException("inconsistent port limits " + maxConnections + "/" + maxBodyBytes + "/"
                    + requestTimeout + "/" + idleTimeout);
        }
    }

    public static PortLimits of(int maxConnections, long maxBodyBytes, Duration requestTimeout) {
        return new PortLimits(maxConnections, maxBodyBytes, requestTimeout, requestTimeout);
    }

    int maxPerClient() {
        return Math.max(4, maxConnections / 4);
    }

    /** The same, with more silence allowed while an answer is being prepared. */
    public PortLimits answeringWithin(Duration idle) {
        return new PortLimits(maxConnections, maxBodyBytes, requestTimeout, idle.compareTo(requestTimeout) < 0 ? requestTimeout : idle);
    }
}
