package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** HTTP Basic credentials, compared in constant time; with no username configured every request passes. */
final class BasicAuth {

    static final String CHALLENGE = "Basic realm=\"scheduled-events-bridge\", charset=\"UTF-8\"";

    enum Outcome { NOT_REQUIRED, ACCEPTED, MISSING, WRONG }

    private final boolean required;
    private final byte[] expected;

    BasicAuth(String username, String password) {
        this.required = !username.isEmpty();
        this.expected = required ? sha256(username + ":" + password) : new byte[0];
    }

    boolean required() {
        return required;
    }

    Outcome check(Request request) {
        if (!required) {
            return Outcome.NOT_REQUIRED;
        }
        String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Outcome.MISSING;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(header.substring(6).trim());
        } catch (IllegalArgumentException e) {
            return Outcome.WRONG;
        }
        return MessageDigest.isEqual(expected, sha256(new String(decoded, StandardCharsets.UTF_8)))
                ? Outcome.ACCEPTED : Outcome.WRONG;
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
