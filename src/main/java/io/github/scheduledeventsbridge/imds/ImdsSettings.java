package io.github.scheduledeventsbridge.imds;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.net.URI;
import java.time.Duration;

/** Where and how often IMDS is polled, and how long it may take. */
public record ImdsSettings(URI url, String apiVersion, Duration pollInterval, Duration timeout,
                           Duration firstCallTimeout, Duration maxBackoff, long maxDocumentSize,
                           URI instanceUrl, String instanceApiVersion) {

    /** IMDS allows 5 requests per second. */
    public static final long MIN_POLL_INTERVAL_MS = 200;

    public static ImdsSettings read(SettingsReader r) {
        Duration pollInterval = r.millis("bridge.imds.poll-interval", 1000);
        if (pollInterval.toMillis() < MIN_POLL_INTERVAL_MS) {
            throw new BadConfigurationException("bridge.imds.poll-interval",
                    pollInterval.toMillis() + " is below the minimum of 200 ms (IMDS allows 5 requests per second)");
        }
        return new ImdsSettings(
                r.httpUrl("bridge.imds.url", "http://169.254.169.254/metadata/scheduledevents"),
                r.nonBlank("bridge.imds.api-version", "2020-07-01"),
                pollInterval,
                r.millis("bridge.imds.timeout", 10_000),
                r.millis("bridge.imds.first-call-timeout", 120_000),
                r.millis("bridge.imds.max-backoff", 30_000),
                r.positiveLong("bridge.imds.max-document-size", 1_048_576),
                r.httpUrl("bridge.imds.instance-url", "http://169.254.169.254/metadata/instance/compute"),
                r.nonBlank("bridge.imds.instance-api-version", "2021-02-01"));
    }
}
