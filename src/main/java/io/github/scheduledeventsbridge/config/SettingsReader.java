package io.github.scheduledeventsbridge.config;

import io.github.scheduledeventsbridge.platform.FileRules;
import io.github.scheduledeventsbridge.platform.Platform;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.logging.Redaction.redact;

/** Typed {@code bridge.*} values, paths on {@code platform}'s file system; a refusal names the key and value. */
public record SettingsReader(Function<String, String> properties, Platform platform) {

    public SettingsReader(Function<String, String> properties) {
        this(properties, Platform.current());
    }

    /** A host name or address that resolves. */
    public String resolvableHost(String key, String fallback) {
        String host = nonBlank(key, fallback);
        try {
            java.net.InetAddress.getByName(host);
        } catch (java.net.UnknownHostException e) {
            throw new BadConfigurationException(key, "'" + host + "' cannot be resolved to an address");
        }
        return host;
    }

    /** Routes read the raw value, so the check reads it too: white space around a value is refused. */
    public String string(String key, String fallback) {
        String value = properties.apply(key);
        if (value != null && !value.equals(value.strip())) {
            // The value is not repeated: it may be a secret.
            throw new BadConfigurationException(key, "has white space around its value");
        }
        return value == null ? fallback : value;
    }

    public String nonBlank(String key, String fallback) {
        String value = string(key, fallback);
        if (value.isEmpty()) {
            throw new BadConfigurationException(key, "must not be empty");
        }
        return value;
    }

    public Duration millis(String key, long fallback) {
        return Duration.ofMillis(positive(key, fallback, " of milliseconds"));
    }

    public long positiveLong(String key, long fallback) {
        return positive(key, fallback, "");
    }

    private long positive(String key, long fallback, String unit) {
        return number(key, fallback, Long::parseLong, "a number" + unit, n -> n > 0,
                " must be a positive number" + unit);
    }

    /** The refusal names the value: a number is never a secret. */
    private <T> T number(String key, Object fallback, Function<String, T> parse, String what, Predicate<T> valid,
                         String invalid) {
        String value = string(key, fallback.toString());
        T number;
        try {
            number = parse.apply(value);
        } catch (NumberFormatException e) {
            throw new BadConfigurationException(key, "'" + value + "' is not " + what);
        }
        if (!valid.test(number)) {
            throw new BadConfigurationException(key, value + invalid);
        }
        return number;
    }

    public boolean bool(String key, boolean fallback) {
        String value = string(key, Boolean.toString(fallback)).toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new BadConfigurationException(key, "'" + value + "' is neither true nor false");
        }
        return Boolean.parseBoolean(value);
    }

    public int port(String key, int fallback) {
        return number(key, fallback, Integer::parseInt, "a TCP port", port -> port >= 0 && port <= 65535,
                " is not a TCP port (0-65535)");
    }

    public double positiveDouble(String key, double fallback) {
        return number(key, fallback, Double::parseDouble, "a number", d -> d > 0 && !Double.isInfinite(d),
                " must be a positive number");
    }

    public URI httpUrl(String key, String fallback) {
        return parseHttpUrl(key, string(key, fallback));
    }

    public Set<String> names(String key, String fallback, Set<String> known) {
        Set<String> result = new java.util.LinkedHashSet<>();
        for (String value : list(key, fallback)) {
            if (value.equals("*") || value.equalsIgnoreCase("all")) {
                return Set.of();
            }
            result.add(known.stream().filter(k -> k.equalsIgnoreCase(value)).findFirst()
                    .orElseThrow(() -> new BadConfigurationException(key,
                            "'" + value + "' is not one of " + new java.util.TreeSet<>(known))));
        }
        return Set.copyOf(result);
    }

    public List<String> list(String key, String fallback) {
        return Arrays.stream(string(key, fallback).split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
    }

    /** Made if missing (0700 where permissions are POSIX); one that other users can read is warned about. */
    public Path writableDirectory(String key, String fallback) {
        Path dir = platform.path(nonBlank(key, fallback)).toAbsolutePath().normalize();
        FileRules rules = FileRules.of(dir);
        try {
            rules.createDirectories(dir);
        } catch (Exception e) {
            throw new BadConfigurationException(key, dir + " cannot be created (" + e.getMessage() + ")");
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new BadConfigurationException(key, dir + " is not a writable directory");
        }
        requireReadableState(key, dir);
        rules.openToOthers(dir).ifPresent(mode -> org.slf4j.LoggerFactory.getLogger(SettingsReader.class).warn(
                "{} ({}) is {}: other local users can list it and read what older versions wrote there (spooled "
                        + "messages, dead letters); the agent's files are 0600. Make it private: chmod 700 {}",
                key, dir, mode, dir));
        return dir;
    }

    /** An unreadable state file is not a corrupt one: moving it aside would report every current event again. */
    private static void requireReadableState(String key, Path stateDir) {
        for (Path state : Stream.of("state.json", "actions.json").map(stateDir::resolve)
                .filter(state -> Files.exists(state, LinkOption.NOFOLLOW_LINKS)).toList()) {
            try (FileChannel ignored = FileChannel.open(state, StandardOpenOption.READ)) {
                // readable: fine
            } catch (AccessDeniedException e) {
                throw new BadConfigurationException(key, state + " cannot be read by this user (" + ownerAndMode(state)
                        + "); fix its owner or mode, it is not moved aside");
            } catch (IOException e) {
                throw new BadConfigurationException(key, state + " cannot be opened (" + e.getMessage() + ")");
            }
        }
    }

    private static String ownerAndMode(Path file) {
        try {
            return "owner " + Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName() + ", mode "
                    + PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UnsupportedOperationException e) {
            return "owner and mode unknown";
        }
    }

    public static URI parseHttpUrl(String key, String value) {
        try {
            URI uri = new URI(value);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw new BadConfigurationException(key, "'" + redact(value) + "' is not an http(s) URL with a host");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new BadConfigurationException(key, "'" + redact(value) + "' is not a URL (" + e.getReason() + ")");
        }
    }
}
