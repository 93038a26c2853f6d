package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Browsers send {@code Origin} with cross-origin requests (and with same-origin POSTs). The management port
 * answers only requests without one or from its own origin: another site open in the operator's browser can
 * neither read the console's answers nor send it requests riding on the browser's cached HTTP Basic login
 * (a form or {@code no-cors} POST to Jolokia needs no CORS answer to take effect).
 *
 * <p>Same origin means the same host as the request's {@code Host} header (or a reverse proxy's
 * {@code X-Forwarded-Host}) and, when that header names a port, the same port. The scheme is not compared: behind
 * a TLS proxy the browser's origin is https while this port speaks plain HTTP. Trusting {@code X-Forwarded-Host}
 * gives a cross-site page nothing: a browser sends no such header cross-origin without a preflight, and the
 * preflight, carrying the foreign {@code Origin}, is refused.
 */
final class SameOrigin {

    private SameOrigin() {
    }

    /** True when the request has no {@code Origin} header or one naming this server as the browser reached it. */
    static boolean allows(Request request) {
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (origin == null) {
            return true;
        }
        if (origin.isBlank() || origin.trim().equals("null")) {
            return false;
        }
        String forwarded = request.getHeaders().get(HttpHeader.X_FORWARDED_HOST);
        return matches(origin, request.getHeaders().get(HttpHeader.HOST))
                || (forwarded != null && matches(origin, forwarded.split(",")[0]));
    }

    private static boolean matches(String origin, String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        try {
            URI from = new URI(origin.trim());
            URI self = new URI("http://" + host.trim());
            if (from.getHost() == null || self.getHost() == null
                    || !from.getHost().toLowerCase(Locale.ROOT).equals(self.getHost().toLowerCase(Locale.ROOT))) {
                return false;
            }
            if (self.getPort() < 0) {
                return true;
            }
            int fromPort = from.getPort() >= 0 ? from.getPort()
                    : "https".equalsIgnoreCase(from.getScheme()) ? 443 : 80;
            return fromPort == self.getPort();
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
