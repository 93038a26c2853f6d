package io.github.scheduledeventsbridge.delivery;

import java.net.URI;
import java.util.Locale;

import static io.github.scheduledeventsbridge.logging.Redaction.redact;

/**
 * One webhook target. {@code url} is as configured, credentials included: only {@link #requestUrl()},
 * {@link #basicAuthorization()} and {@link #toString()} (host only) leave this record.
 */
public record WebhookTarget(URI url, WebhookFormat format) implements Sink.Target {
    @Override
    public String toString() {
        String prefix = format.prefix();
        return prefix.substring(0, prefix.length() - 1) + " " + redact(url.toString());
    }

    /** The sink's label: host and port only, as {@link #toString()} shows them. */
    public String label() {
        return "webhook " + hostAndPort();
    }

    /** Where requests go: the URL exactly as configured (query and its encoding untouched) minus {@code user:password@}. */
    public String requestUrl() {
        return url.getScheme() + "://" + hostAndPort() + (url.getRawPath() == null ? "" : url.getRawPath())
                + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
    }

    /** {@code user:password@} in the URL becomes HTTP Basic authentication (RFC 7617), or nothing. */
    public java.util.Optional<String> basicAuthorization() {
        String userInfo = url.getUserInfo();   // percent-decoded
        if (userInfo == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("Basic " + java.util.Base64.getEncoder()
                .encodeToString(userInfo.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /**
     * What names this target's spool: format, scheme, host, port and path. Not the query nor the credentials,
     * so that rotating a token ({@code ?code=}, {@code sig=}, {@code user:password@}) keeps the messages waiting.
     */
    public String identity() {
        return identity(false);
    }

    /** The identity with the query too, for two targets that differ only there. */
    public String identity(boolean withQuery) {
        String base = format.name() + " " + url.getScheme().toLowerCase(Locale.ROOT) + "://"
                + url.getHost().toLowerCase(Locale.ROOT) + ":" + port() + (url.getRawPath() == null ? "" : url.getRawPath());
        return withQuery && url.getRawQuery() != null ? base + "?" + url.getRawQuery() : base;
    }

    private int port() {
        return url.getPort() != -1 ? url.getPort() : url.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private String hostAndPort() {
        return url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort());
    }
}
