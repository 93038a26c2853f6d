package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

/** The one list of {@code bridge.*} keys, with defaults and comments: the packaged {@code application.properties}. */
public record ConfigKeys(Map<String, Key> keys) {

    /** Read before Camel starts, so they can only come from -D or the environment. */
    public static final String CONFIG_FILE = "bridge.config";
    public static final String LOG_FORMAT = "bridge.log.format";

    /** A key, its packaged default and the comment above it in the packaged file. */
    public record Key(String name, String defaultValue, String comment) {
    }

    private static final ConfigKeys PACKAGED = load();

    public static ConfigKeys packaged() {
        return PACKAGED;
    }

    public List<Key> all() {
        return List.copyOf(keys.values());
    }

    public boolean isKnown(String key) {
        return keys.containsKey(key);
    }

    public String defaultValue(String key) {
        return keys.containsKey(key) ? keys.get(key).defaultValue() : null;
    }

    public Optional<Key> byEnvironmentName(String variable) {
        return keys.values().stream().filter(k -> environmentName(k.name()).equals(variable)).findFirst();
    }

    /** The known key closest to a typo, by edit distance; empty when nothing is reasonably close. */
    public Optional<String> nearest(String typo, boolean asEnvironmentName) {
        int limit = Math.max(3, typo.length() / 3);
        return keys.keySet().stream().map(name -> asEnvironmentName ? environmentName(name) : name)
                .filter(candidate -> distance(typo, candidate) <= limit)
                .min(Comparator.comparingInt(candidate -> distance(typo, candidate)));
    }

    /** {@code bridge.imds.poll-interval} → {@code BRIDGE_IMDS_POLL_INTERVAL}, as Camel and docs/configuration.md spell it. */
    public static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** {@code --help}: every key with its default and what it means. */
    public String help() {
        StringBuilder out = new StringBuilder();
        for (Key key : keys.values()) {
            out.append(key.name()).append('=').append(key.defaultValue()).append('\n');
            key.comment().lines().forEach(line -> out.append("    ").append(line).append('\n'));
        }
        return out.toString();
    }

    private static ConfigKeys load() {
        try (InputStream in = ConfigKeys.class.getResourceAsStream("/application.properties")) {
            byte[] bytes = Objects.requireNonNull(in, "application.properties is missing from the jar").readAllBytes();
            return parse(new String(bytes, StandardCharsets.UTF_8).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Keys in file order; a key's comment is the block of {@code #} lines right above it (## are headings). */
    static ConfigKeys parse(List<String> lines) {
        Map<String, Key> keys = new LinkedHashMap<>();
        List<String> comment = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.startsWith("##") || line.isEmpty()) {
                comment.clear();
            } else if (line.startsWith("#")) {
                comment.add(line.substring(1).strip());
            } else {
                int eq = line.indexOf('=');
                String name = (eq < 0 ? line : line.substring(0, eq)).strip();
                if (name.startsWith("bridge.")) {
                    keys.put(name, new Key(name, eq < 0 ? "" : line.substring(eq + 1).strip(), String.join("\n", comment)));
                }
                comment.clear();
            }
        }
        return new ConfigKeys(Collections.unmodifiableMap(keys));
    }

    /** Levenshtein distance, one row at a time. */
    private static int distance(String a, String b) {
        int[] row = IntStream.rangeClosed(0, b.length()).toArray();
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(Math.min(row[j - 1], above) + 1, diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
    }
}
