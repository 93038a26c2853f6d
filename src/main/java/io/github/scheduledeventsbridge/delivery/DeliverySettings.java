package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.time.Duration;

/**
 * Retries of every sink: growing pauses, how long a refused message is retried before it is a dead letter, and how
 * long one attempt may take, connection to last byte of the answer.
 */
public record DeliverySettings(Duration initialBackoff, Duration maxBackoff, Duration deadLetterAfter,
                               Duration attemptTimeout) {

    public static DeliverySettings read(SettingsReader r) {
        Duration initialBackoff = r.millis("bridge.delivery.initial-backoff", 500);
        Duration maxBackoff = r.millis("bridge.delivery.max-backoff", 5_000);
        if (initialBackoff.compareTo(maxBackoff) > 0) {
            throw new BadConfigurationException("bridge.delivery.initial-backoff", initialBackoff.toMillis()
                    + " is above bridge.delivery.max-backoff (" + maxBackoff.toMillis() + ")");
        }
        return new DeliverySettings(initialBackoff, maxBackoff, r.millis("bridge.delivery.dead-letter-after", 3_600_000),
                r.millis("bridge.delivery.attempt-timeout", 30_000));
    }
}
