package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.http.HttpPort;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Routes the management port. With credentials configured (HTTP Basic, compared in constant time), every path
 * needs them except the status of the two probes; wrong logins are throttled ({@link LoginThrottle}); requests from
 * another origin are refused.
 */
final class ManagementHandler extends Handler.Abstract {

    private static final String CHALLENGE = "Basic realm=\"scheduled-events-bridge\", charset=\"UTF-8\"";
    private static final Logger LOG = LoggerFactory.getLogger(ManagementHandler.class);
    private static final long LOG_REFUSALS_EVERY_MS = 10_000;
    /** Set at a good login; see {@link LoginThrottle}. */
    static final String LOGIN_COOKIE = "seb_login";

    private enum Login { NOT_REQUIRED, ACCEPTED, MISSING, WRONG }

    private final CamelContext context;
    /** SHA-256 of {@code username:password}; null when no username is configured and every request passes. */
    private final byte[] expected;
    private final HawtioConsole console;
    private final AtomicLong lastRefusalLogged = new AtomicLong();
    private final LoginThrottle throttle = new LoginThrottle(System::nanoTime);
    private final ProbeAnswers probes;

    ManagementHandler(CamelContext context, String username, String password, HawtioConsole console) {
        this.context = context;
        this.expected = username.isEmpty() ? null : sha256(username + ":" + password);
        this.console = console;
        this.probes = new ProbeAnswers(context, System::nanoTime);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getCanonicalPath();
        path = path == null ? "" : path;
        // Without a login, one answer per connection: requests pipelined and never read cannot keep the port busy.
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        if (!sameOrigin(request)) {
            return text(response, callback, HttpStatus.FORBIDDEN_403, "Cross-origin requests are refused.\n");
        }
        String address = Request.getRemoteAddr(request);
        String token = loginCookie(request);
        if (expected != null && request.getHeaders().contains(HttpHeader.AUTHORIZATION)) {
            Duration wait = throttle.retryAfter(address, token);
            if (!wait.isZero()) {
                return tooManyAttempts(response, callback, wait);
            }
        }
        Login login = login(request);
        boolean authorized = login == Login.ACCEPTED || login == Login.NOT_REQUIRED;
        if (login == Login.WRONG) {
            throttle.failed(address, token);
            logRefusal(request, path);
        } else if (login == Login.ACCEPTED) {
            String issued = throttle.succeeded(address, token);
            if (issued != null) {
                response.getHeaders().add(HttpHeader.SET_COOKIE, LOGIN_COOKIE + "=" + issued + "; Path=/; Max-Age="
                        + LoginThrottle.TRUST_FOR.toSeconds() + "; HttpOnly; SameSite=Strict");
            }
            HttpPort.vouch(request); // an operator's request: never closed as idle while it is answered
            response.getHeaders().remove(HttpHeader.CONNECTION);
        }

        if (path.equals("/hawtio") || path.startsWith("/hawtio/")) {
            if (console == null) {
                return text(response, callback, HttpStatus.NOT_FOUND_404, "The Hawtio console is off: it needs "
                        + "bridge.management.username and bridge.management.password.\n");
            }
            return authorized ? console.handle(request, response, callback) : challenge(response, callback);
        }

        String method = request.getMethod();
        boolean head = HttpMethod.HEAD.is(method);
        if (!head && !HttpMethod.GET.is(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            return text(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "Only GET and HEAD here.\n");
        }
        String route = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        boolean details = hasDetailsParameter(request);
        if (details && !authorized && (route.equals("/observe/health/live") || route.equals("/observe/health/ready"))) {
            return challenge(response, callback);
        }
        return switch (route) {
            case "/observe/health/live" -> health(response, callback, HealthCheck.Kind.LIVENESS, details, head);
            case "/observe/health/ready" -> health(response, callback, HealthCheck.Kind.READINESS, details, head);
            case "/observe/health" -> authorized
                    ? health(response, callback, HealthCheck.Kind.ALL, true, head) : challenge(response, callback);
            case "/metrics" -> authorized ? metrics(response, callback, head) : challenge(response, callback);
            default -> text(response, callback, HttpStatus.NOT_FOUND_404, "Not found. Try /observe/health/live, "
                    + "/observe/health/ready, /observe/health, /metrics" + (console == null ? "" : " or /hawtio/") + ".\n");
        };
    }

    /** The login token a good login set as a cookie, or null. */
    private static String loginCookie(Request request) {
        for (String header : request.getHeaders().getValuesList(HttpHeader.COOKIE)) {
            for (String pair : header.split(";")) {
                String trimmed = pair.trim();
                if (trimmed.startsWith(LOGIN_COOKIE + "=")) {
                    return trimmed.substring(LOGIN_COOKIE.length() + 1);
                }
            }
        }
        return null;
    }

    private Login login(Request request) {
        if (expected == null) {
            return Login.NOT_REQUIRED;
        }
        String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Login.MISSING;
        }
        try {
            byte[] decoded = Base64.getDecoder().decode(header.substring(6).trim());
            return MessageDigest.isEqual(expected, sha256(new String(decoded, StandardCharsets.UTF_8)))
                    ? Login.ACCEPTED : Login.WRONG;
        } catch (IllegalArgumentException e) {
            return Login.WRONG;
        }
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * No {@code Origin}, or one naming this server as the browser reached it: another site in the operator's browser
     * can neither read the console nor ride on its cached login (a {@code no-cors} POST to Jolokia needs no CORS
     * answer to take effect). The scheme is not compared (a TLS proxy in front); a cross-site page cannot send
     * {@code X-Forwarded-Host} without a preflight, which is refused. See docs/security.md.
     */
    private static boolean sameOrigin(Request request) {
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

    private boolean health(Response response, Callback callback, HealthCheck.Kind kind, boolean details, boolean head) {
        HealthReport report = details ? HealthReport.of(context, kind, true) : probes.status(kind);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        HttpPort.send(response, callback, report.up() ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503,
                "application/json; charset=utf-8", head ? "" : report.json() + "\n");
        return true;
    }

    private boolean metrics(Response response, Callback callback, boolean head) {
        // The registry Camel Main sets up from camel.metrics.*, looked up when scraped (it comes late).
        PrometheusMeterRegistry metrics = context.getRegistry().findSingleByType(PrometheusMeterRegistry.class);
        if (metrics == null) {
            return text(response, callback, HttpStatus.NOT_FOUND_404,
                    "Metrics are off: camel.metrics.enabled is not true.\n");
        }
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        HttpPort.send(response, callback, HttpStatus.OK_200, "text/plain; version=0.0.4; charset=utf-8", head ? "" : metrics.scrape());
        return true;
    }

    private static boolean hasDetailsParameter(Request request) {
        String query = request.getHttpURI().getQuery();
        return query != null && Arrays.stream(query.split("&")).filter(p -> p.equals("details") || p.startsWith("details="))
                .findFirst().map(p -> !p.equals("details=false")).orElse(false);
    }

    private static boolean tooManyAttempts(Response response, Callback callback, Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(seconds));
        return text(response, callback, HttpStatus.TOO_MANY_REQUESTS_429,
                "Too many wrong logins: try again in " + seconds + " s.\n");
    }

    private static boolean challenge(Response response, Callback callback) {
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, CHALLENGE);
        return text(response, callback, HttpStatus.UNAUTHORIZED_401, "Authentication required.\n");
    }

    private static boolean text(Response response, Callback callback, int status, String body) {
        HttpPort.send(response, callback, status, "text/plain; charset=utf-8", body);
        return true;
    }

    private void logRefusal(Request request, String path) {
        long now = System.currentTimeMillis();
        long last = lastRefusalLogged.get();
        if (now - last >= LOG_REFUSALS_EVERY_MS && lastRefusalLogged.compareAndSet(last, now)) {
            LOG.warn("Management request to {} from {} refused: wrong credentials", path, Request.getRemoteAddr(request));
        }
    }
}
