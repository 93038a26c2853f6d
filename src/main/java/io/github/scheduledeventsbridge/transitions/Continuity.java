package io.github.scheduledeventsbridge.transitions;

import java.time.Instant;

/**
 * What the agent knows about the time between the previous document and this one. {@code watching}:
 * it polled without a break long enough to miss a phase (no restart, no long gap), so an event that
 * vanished from Scheduled was seen to vanish from Scheduled. Otherwise the ending is judged on evidence:
 * {@code lastObserved} (the last successful poll, null if unknown), {@code bootTime} (null if unknown)
 * and {@code now}.
 */
public record Continuity(boolean watching, Instant lastObserved, Instant bootTime, Instant now) {

    /** Polling without a break: every phase of every event was seen. */
    public static Continuity watching(Instant now) {
        return new Continuity(true, now, null, now);
    }
}
