package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Refuses cross-origin requests, so another site in the operator's browser can neither read the console nor ride on
 * its cached HTTP Basic login (a {@code no-cors} POST to Jolokia needs no CORS answer to take effect). The scheme is
 * not compared (a TLS proxy in front); a cross-site page cannot send {@code X-Forwarded-Host} without a preflight,
 * which is refused. See docs/security.md.
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
            if (from.getHost() == null || !from.getHost().equalsIgnoreCase(self.getHost())) {
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
