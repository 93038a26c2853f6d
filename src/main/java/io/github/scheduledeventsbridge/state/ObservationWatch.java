package io.github.scheduledeventsbridge.state;

import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.transitions.Continuity;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether the agent has been watching IMDS without a break since it last recorded an observation. It has
 * not after a restart (whatever happened while it was down is unknown) nor after a gap between successful
 * polls longer than {@link #maxGap}: IMDS keeps a Started event listed for minutes, so a gap of a few
 * polls cannot hide a Started phase, while anything longer might have.
 */
public final class ObservationWatch {

    /** Three polls missed is more than a blip; below 10 s no Started phase can come and go unseen. */
    public static Duration maxGap(Duration pollInterval) {
        Duration threePolls = pollInterval.multipliedBy(3);
        Duration floor = Duration.ofSeconds(10);
        return threePolls.compareTo(floor) > 0 ? threePolls : floor;
    }

    private final Duration maxGap;
    private final BootTime bootTime;
    private final Clock clock;
    private Instant lastObserved;
    private boolean observedThisRun;
    private boolean persistedThisRun;

    public ObservationWatch(Duration maxGap, BootTime bootTime, Clock clock) {
        this.maxGap = maxGap;
        this.bootTime = bootTime;
        this.clock = clock;
    }

    /** The last observation kept in the state file (null: unknown, e.g. a state file from an older version). */
    void restore(Instant persisted) {
        lastObserved = persisted;
    }

    /** A complete document just arrived: how it relates to the last one seen. */
    Continuity now() {
        Instant now = clock.instant();
        boolean watching = observedThisRun && lastObserved != null
                && Duration.between(lastObserved, now).compareTo(maxGap) <= 0;
        return watching ? new Continuity(true, lastObserved, null, now)
                : new Continuity(false, lastObserved, bootTime.get(), now);
    }

    /** The document polled at {@code when} is recorded (in memory, and on disk if {@code persisted}). */
    void observed(Instant when, boolean persisted) {
        lastObserved = when;
        observedThisRun = true;
        persistedThisRun |= persisted;
    }

    /**
     * The first observation of each run goes to disk even when the document did not change, so that a
     * later boot-time comparison never uses an observation older than the current boot.
     */
    boolean needsPersisting() {
        return !persistedThisRun;
    }

    Instant lastObserved() {
        return lastObserved;
    }
}
