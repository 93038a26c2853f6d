package io.github.scheduledeventsbridge.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When the agent is ready, as plain decisions: each returns the problem, or empty when all is well.
 * Used by the readiness health checks and tested on its own.
 */
public final class Readiness {

    private final Duration imdsStaleAfter;
    private final long spoolThreshold;
    private final Duration sinkStaleAfter;

    public Readiness(Duration imdsStaleAfter, long spoolThreshold, Duration sinkStaleAfter) {
        this.imdsStaleAfter = imdsStaleAfter;
        this.spoolThreshold = spoolThreshold;
        this.sinkStaleAfter = sinkStaleAfter;
    }

    /** IMDS must have answered with a complete document recently. */
    public Optional<String> imds(Instant lastAnswer, Instant now) {
        if (lastAnswer == null) {
            return Optional.of("IMDS has not answered with a complete document yet");
        }
        Duration since = Duration.between(lastAnswer, now);
        return since.compareTo(imdsStaleAfter) > 0
                ? Optional.of("IMDS last answered " + since.toSeconds() + " s ago (limit " + imdsStaleAfter.toSeconds() + " s)")
                : Optional.empty();
    }

    /** Messages waiting on disk, all sinks together, must stay below the threshold. */
    public Optional<String> spool(long depth) {
        return depth >= spoolThreshold
                ? Optional.of(depth + " undelivered message(s) in the spool (limit " + spoolThreshold + ")")
                : Optional.empty();
    }

    /** A sink is fine when it has nothing to deliver, or delivered something recently. */
    public Optional<String> sink(String sinkId, long pending, Instant lastDelivered, Instant waitingSince, Instant now) {
        if (pending == 0) {
            return Optional.empty();
        }
        Instant reference = lastDelivered != null && (waitingSince == null || lastDelivered.isAfter(waitingSince))
                ? lastDelivered : waitingSince;
        if (reference == null) {
            return Optional.empty();
        }
        Duration since = Duration.between(reference, now);
        return since.compareTo(sinkStaleAfter) > 0
                ? Optional.of(sinkId + ": " + pending + " waiting, nothing delivered for " + since.toSeconds() + " s"
                        + (waitingSince == null ? "" : ", oldest waiting " + Duration.between(waitingSince, now).toSeconds() + " s"))
                : Optional.empty();
    }
}
