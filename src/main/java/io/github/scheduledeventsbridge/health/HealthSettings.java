package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.config.SettingsReader;

import java.time.Duration;

/** When readiness goes DOWN: IMDS silent, too many messages waiting, a sink delivering nothing. */
public record HealthSettings(Duration imdsStaleAfter, long spoolThreshold, Duration sinkStaleAfter) {

    public static HealthSettings read(SettingsReader r) {
        return new HealthSettings(r.millis("bridge.health.imds-stale-after", 30_000),
                r.positiveLong("bridge.health.spool-threshold", 1_000),
                r.millis("bridge.health.sink-stale-after", 300_000));
    }
}
