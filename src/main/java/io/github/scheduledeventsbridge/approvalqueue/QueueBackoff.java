package io.github.scheduledeventsbridge.approvalqueue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * When the queue may be asked next: every tick while it answers; after failures, waits doubling from the poll
 * interval up to {@link #CEILING}, or what a 503's Retry-After asked for (within that ceiling).
 */
final class QueueBackoff {

    static final Duration CEILING = Duration.ofMinutes(5);

    private final Clock clock;
    private final Duration interval;
    private Instant next = Instant.MIN;
    private int failures;

    QueueBackoff(Clock clock, Duration interval) {
        this.clock = clock;
        this.interval = interval;
    }

    synchronized boolean due() {
        return !clock.instant().isBefore(next);
    }

    synchronized int failures() {
        return failures;
    }

    synchronized void succeeded() {
        failures = 0;
        next = Instant.MIN;
    }

    /** The wait before the next attempt. */
    synchronized Duration failed(Duration retryAfter) {
        failures++;
        Duration wait = interval.multipliedBy(1L << Math.min(failures, 12));
        if (retryAfter != null && retryAfter.compareTo(wait) > 0) {
            wait = retryAfter;
        }
        if (wait.compareTo(CEILING) > 0) {
            wait = CEILING;
        }
        next = clock.instant().plus(wait);
        return wait;
    }
}
