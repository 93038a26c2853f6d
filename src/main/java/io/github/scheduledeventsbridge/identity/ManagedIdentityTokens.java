package io.github.scheduledeventsbridge.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.http.BoundedExchange;
import io.github.scheduledeventsbridge.logging.Redaction;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The VM's managed identity: tokens from IMDS's identity endpoint ({@code GET ?api-version=2018-02-01&resource=…
 * [&client_id=…]}, header {@code Metadata: true}), asked by the agent itself so that no library reaches
 * 169.254.169.254 on its own. A token is kept per resource and identity until {@link #REFRESH_BEFORE} before it
 * expires (half its life for a short-lived one), so a caller may ask before every request.
 */
public final class ManagedIdentityTokens {

    public static final String API_VERSION = "2018-02-01";
    /** A token is renewed this long before it expires; IMDS itself hands out a new one only in the last 5 minutes. */
    public static final Duration REFRESH_BEFORE = Duration.ofMinutes(5);
    /** An answer is a token of a few KiB; more is not one. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private final Supplier<URI> endpoint;
    private volatile URI url;
    private final Duration timeout;
    private final Clock clock;
    private BoundedExchange http;
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    private record Held(AccessToken token, Instant renewAt) {
    }

    public ManagedIdentityTokens(IdentitySettings settings, Clock clock) {
        this(settings.url(), settings.timeout(), clock);
    }

    public ManagedIdentityTokens(URI url, Duration timeout, Clock clock) {
        this(() -> url, timeout, clock);
    }

    /**
     * With the endpoint asked for at the first token, not now: the built-in simulator's port is known only once
     * it has started, after the beans are made.
     */
    public ManagedIdentityTokens(Supplier<URI> endpoint, Duration timeout, Clock clock) {
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.clock = clock;
    }

    public URI url() {
        URI known = url;
        if (known == null) {
            known = endpoint.get();
            url = known;
        }
        return known;
    }

    /**
     * A token for {@code resource} (e.g. {@code https://storage.azure.com/}) of the system-assigned identity
     * ({@code clientId} null or empty) or of the user-assigned one with that client id.
     */
    public AccessToken token(String resource, String clientId) throws TokenUnavailableException {
        String key = resource + "\n" + (clientId == null ? "" : clientId);
        Held current = held.get(key);
        if (current != null && clock.instant().isBefore(current.renewAt())) {
            return current.token();
        }
        synchronized (this) {
            current = held.get(key);
            if (current != null && clock.instant().isBefore(current.renewAt())) {
                return current.token();
            }
            AccessToken fresh = fetch(resource, clientId);
            Instant now = clock.instant();
            Duration life = Duration.between(now, fresh.expiresOn());
            Instant renewAt = life.compareTo(REFRESH_BEFORE.multipliedBy(2)) > 0
                    ? fresh.expiresOn().minus(REFRESH_BEFORE) : now.plus(life.dividedBy(2));
            held.put(key, new Held(fresh, renewAt));
            return fresh;
        }
    }

    /** Forgets every token held (a peer refused one: the next call asks IMDS again). */
    public void forget() {
        held.clear();
    }

    private AccessToken fetch(String resource, String clientId) throws TokenUnavailableException {
        URI url = url();
        if (http == null) { // made at the first token: no HTTP client is loaded where no identity is used
            http = new BoundedExchange(BoundedExchange.client(null, timeout));
        }
        String who = clientId == null || clientId.isEmpty() ? "the system-assigned identity"
                : "the user-assigned identity " + clientId;
        String what = "No managed identity token for " + resource + " (" + who + ") from " + url;
        String query = "api-version=" + API_VERSION + "&resource=" + URLEncoder.encode(resource, StandardCharsets.UTF_8)
                + (clientId == null || clientId.isEmpty() ? "" : "&client_id=" + URLEncoder.encode(clientId, StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "?" + query)).header("Metadata", "true")
                .timeout(timeout).GET().build();
        BoundedExchange.Answer answer;
        try {
            answer = http.send(request, MAX_ANSWER_BYTES, timeout);
        } catch (HttpTimeoutException e) {
            throw new TokenUnavailableException(what + ": no answer within " + timeout.toMillis() + " ms", 0, e);
        } catch (IOException e) {
            throw new TokenUnavailableException(what + ": " + describe(e), 0, e);
        }
        JsonNode json = null;
        try {
            json = answer.truncated() ? null : MAPPER.readTree(answer.body());
        } catch (IOException notJson) {
            // said below, with the status
        }
        if (answer.status() != 200) {
            String error = json == null ? "" : (json.path("error").asText("") + " " + json.path("error_description").asText("")).trim();
            throw new TokenUnavailableException(what + ": HTTP " + answer.status()
                    + (error.isEmpty() ? "" : " (" + Redaction.peerText(error) + ")") + hint(answer.status()),
                    answer.status(), null);
        }
        String token = json == null ? "" : json.path("access_token").asText("");
        Instant expiresOn = json == null ? null : expiresOn(json);
        if (token.isEmpty() || expiresOn == null) {
            throw new TokenUnavailableException(what + ": the answer is not a token (no access_token or expires_on)",
                    answer.status(), null);
        }
        return new AccessToken(token, expiresOn);
    }

    /** expires_on (Unix seconds, as a string or a number), or now + expires_in. */
    private Instant expiresOn(JsonNode json) {
        try {
            if (json.hasNonNull("expires_on")) {
                return Instant.ofEpochSecond(Long.parseLong(json.get("expires_on").asText().trim()));
            }
            if (json.hasNonNull("expires_in")) {
                return clock.instant().plusSeconds(Long.parseLong(json.get("expires_in").asText().trim()));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    private static String hint(int status) {
        return switch (status) {
            case 400 -> ": does this VM have that identity (is the client id right)?";
            case 404, 410, 429, 500, 503 -> ": IMDS is busy or the identity is being set up; asked again later";
            default -> "";
        };
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
