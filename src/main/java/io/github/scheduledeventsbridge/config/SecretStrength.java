package io.github.scheduledeventsbridge.config;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Secrets that guard an inbound port must be long and not a documented placeholder; refusals never name the value. */
public final class SecretStrength {

    public static final int MIN_APPROVAL_SECRET_LENGTH = 32;
    /** Placeholders the examples and common docs use, and the starts of more. */
    private static final Set<String> PLACEHOLDERS =
            Set.of("secret", "password", "changeit", "your-secret", "example", "xxx");
    private static final List<String> PLACEHOLDER_STARTS = List.of("change-me", "changeme", "change_me", "replace-me");

    private SecretStrength() {
    }

    /** Null when acceptable, otherwise the reason (without the secret). */
    public static String weakness(String secret, int minLength) {
        String lower = secret.trim().toLowerCase(Locale.ROOT);
        if (PLACEHOLDERS.contains(lower) || PLACEHOLDER_STARTS.stream().anyMatch(lower::startsWith)
                || (lower.startsWith("<") && lower.endsWith(">")) || lower.startsWith("${")) {
            return "is a documented placeholder; generate a real one, e.g. with: openssl rand -hex 32";
        }
        if (secret.length() < minLength) {
            return "is " + secret.length() + " characters long; at least " + minLength
                    + " are required (e.g. openssl rand -hex 32)";
        }
        if (secret.chars().distinct().count() < 8) {
            return "has fewer than 8 different characters; generate a real one, e.g. with: openssl rand -hex 32";
        }
        return null;
    }

    /** Empty (the port it guards stays off) or strong; anything else stops start-up naming {@code key}. */
    public static String require(String key, String secret, int minLength) {
        String weakness = secret.isEmpty() ? null : weakness(secret, minLength);
        if (weakness != null) {
            throw new BadConfigurationException(key, weakness);
        }
        return secret;
    }
}
