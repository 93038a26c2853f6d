package io.github.scheduledeventsbridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Every {@code bridge.*} key, read once and checked before anything starts. Values come from
 * Camel's properties (config file, then environment variables, then -D system properties).
 */
public record BridgeSettings(
        URI imdsUrl,
        String apiVersion,
        Duration pollInterval,
        Duration imdsTimeout,
        Duration imdsFirstCallTimeout,
        Duration imdsMaxBackoff,
        URI instanceUrl,
        String instanceApiVersion,
        Path stateDir,
        String filterResources,
        List<URI> webhookUrls,
        String webhookSecret,
        Duration deliveryInitialBackoff,
        Duration deliveryMaxBackoff,
        boolean simulatorEnabled,
        int simulatorPort,
        double simulatorSpeed,
        List<String> simulatorScenarios,
        boolean simulatorLoop) {

    /** IMDS allows 5 requests per second. */
    public static final long MIN_POLL_INTERVAL_MS = 200;

    public static BridgeSettings read(Function<String, String> properties) {
        Reader r = new Reader(properties);
        Duration pollInterval = r.millis("bridge.imds.poll-interval", 1000);
        if (pollInterval.toMillis() < MIN_POLL_INTERVAL_MS) {
            throw new BadConfigurationException("bridge.imds.poll-interval",
                    pollInterval.toMillis() + " is below the minimum of 200 ms (IMDS allows 5 requests per second)");
        }
        String filter = r.string("bridge.filter.resources", "all").toLowerCase(Locale.ROOT);
        if (!filter.equals("all") && !filter.equals("own")) {
            throw new BadConfigurationException("bridge.filter.resources", "'" + filter + "' is neither 'all' nor 'own'");
        }
        return new BridgeSettings(
                r.httpUrl("bridge.imds.url", "http://169.254.169.254/metadata/scheduledevents"),
                r.nonBlank("bridge.imds.api-version", "2020-07-01"),
                pollInterval,
                r.millis("bridge.imds.timeout", 10_000),
                r.millis("bridge.imds.first-call-timeout", 120_000),
                r.millis("bridge.imds.max-backoff", 30_000),
                r.httpUrl("bridge.imds.instance-url", "http://169.254.169.254/metadata/instance/compute"),
                r.nonBlank("bridge.imds.instance-api-version", "2021-02-01"),
                r.writableDirectory("bridge.state.dir", "./data"),
                filter,
                r.httpUrls("bridge.webhook.urls"),
                r.string("bridge.webhook.secret", ""),
                r.millis("bridge.delivery.initial-backoff", 500),
                r.millis("bridge.delivery.max-backoff", 5_000),
                r.bool("bridge.simulator.enabled", false),
                r.port("bridge.simulator.port", 0),
                r.positiveDouble("bridge.simulator.speed", 60),
                r.list("bridge.simulator.scenarios"),
                r.bool("bridge.simulator.loop", true));
    }

    /** Typed reads that fail with the key's name and the offending value. */
    private record Reader(Function<String, String> properties) {

        String string(String key, String fallback) {
            String value = properties.apply(key);
            return value == null ? fallback : value.trim();
        }

        String nonBlank(String key, String fallback) {
            String value = string(key, fallback);
            if (value.isEmpty()) {
                throw new BadConfigurationException(key, "must not be empty");
            }
            return value;
        }

        Duration millis(String key, long fallback) {
            String value = string(key, Long.toString(fallback));
            try {
                long ms = Long.parseLong(value);
                if (ms <= 0) {
                    throw new BadConfigurationException(key, value + " must be a positive number of milliseconds");
                }
                return Duration.ofMillis(ms);
            } catch (NumberFormatException e) {
                throw new BadConfigurationException(key, "'" + value + "' is not a number of milliseconds");
            }
        }

        boolean bool(String key, boolean fallback) {
            String value = string(key, Boolean.toString(fallback)).toLowerCase(Locale.ROOT);
            if (!value.equals("true") && !value.equals("false")) {
                throw new BadConfigurationException(key, "'" + value + "' is neither true nor false");
            }
            return Boolean.parseBoolean(value);
        }

        int port(String key, int fallback) {
            String value = string(key, Integer.toString(fallback));
            try {
                int port = Integer.parseInt(value);
                if (port < 0 || port > 65535) {
                    throw new BadConfigurationException(key, value + " is not a TCP port (0-65535)");
                }
                return port;
            } catch (NumberFormatException e) {
                throw new BadConfigurationException(key, "'" + value + "' is not a TCP port");
            }
        }

        double positiveDouble(String key, double fallback) {
            String value = string(key, Double.toString(fallback));
            try {
                double d = Double.parseDouble(value);
                if (!(d > 0) || Double.isInfinite(d)) {
                    throw new BadConfigurationException(key, value + " must be a positive number");
                }
                return d;
            } catch (NumberFormatException e) {
                throw new BadConfigurationException(key, "'" + value + "' is not a number");
            }
        }

        URI httpUrl(String key, String fallback) {
            return parseHttpUrl(key, string(key, fallback));
        }

        List<URI> httpUrls(String key) {
            return Arrays.stream(string(key, "").split(","))
                    .map(String::trim).filter(s -> !s.isEmpty())
                    .map(s -> parseHttpUrl(key, s)).distinct().toList();
        }

        List<String> list(String key) {
            return Arrays.stream(string(key, "").split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
        }

        Path writableDirectory(String key, String fallback) {
            Path dir = Path.of(nonBlank(key, fallback)).toAbsolutePath().normalize();
            try {
                Files.createDirectories(dir);
            } catch (Exception e) {
                throw new BadConfigurationException(key, dir + " cannot be created (" + e.getMessage() + ")");
            }
            if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
                throw new BadConfigurationException(key, dir + " is not a writable directory");
            }
            return dir;
        }

        private static URI parseHttpUrl(String key, String value) {
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

    /** Webhook URLs often carry their secret in the path or query (Slack, Teams): log only the host. */
    public static String redact(String url) {
        try {
            URI uri = new URI(url);
            if (uri.getHost() != null) {
                return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + "/…";
            }
        } catch (URISyntaxException ignored) {
            // fall through
        }
        return "<unparsable URL>";
    }
}
