package io.github.scheduledeventsbridge.http;

import java.time.Duration;

/**
 * The bounds of one listening port; every port applies them through the same {@link ConnectionPolicy}.
 *
 * @param maxConnections  open connections; one more closes the oldest idle one (never one that is being answered,
 *                        never the one just accepted)
 * @param maxPerClient    open connections from one client address; one more closes that client's oldest idle one
 * @param maxHeaderBytes  request line and headers together (431 beyond)
 * @param maxBodyBytes    request body (413 beyond, as soon as it is announced or counted); 0 = no body
 * @param requestTimeout  from connecting (or from the previous answer, on a kept-alive connection) to the whole
 *                        request having arrived; then the connection is closed without an answer
 * @param idleTimeout     silence allowed while a request is being answered (the answer may wait for IMDS)
 */
public record PortLimits(int maxConnections, int maxPerClient, int maxHeaderBytes, long maxBodyBytes,
                         Duration requestTimeout, Duration idleTimeout) {

    public static final int HEADER_BYTES = 8 * 1024;

    public PortLimits {
        if (maxConnections < 1 || maxPerClient < 1 || maxHeaderBytes < 1024 || maxBodyBytes < 0
                || requestTimeout.isNegative() || requestTimeout.isZero() || idleTimeout.compareTo(requestTimeout) < 0) {
            throw new IllegalArgumentException("inconsistent port limits " + maxConnections + "/" + maxPerClient + "/"
                    + maxHeaderBytes + "/" + maxBodyBytes + "/" + requestTimeout + "/" + idleTimeout);
        }
    }

    /** The defaults every port shares: 8 KiB of headers, a quarter of the connections (at least 4) per client. */
    public static PortLimits of(int maxConnections, long maxBodyBytes, Duration requestTimeout) {
        return new PortLimits(maxConnections, Math.max(4, maxConnections / 4), HEADER_BYTES, maxBodyBytes,
                requestTimeout, requestTimeout);
    }

    /** The same, with more silence allowed while an answer is being prepared. */
    public PortLimits answeringWithin(Duration idle) {
        return new PortLimits(maxConnections, maxPerClient, maxHeaderBytes, maxBodyBytes, requestTimeout,
                idle.compareTo(requestTimeout) < 0 ? requestTimeout : idle);
    }
}
