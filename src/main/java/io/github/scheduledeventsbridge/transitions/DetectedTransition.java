package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;

/**
 * One change of one event. {@code event} is the event as it is now, or as it was last seen when it
 * vanished (Completed, Cancelled); {@code currentStatus} is null when the event is no longer listed.
 */
public record DetectedTransition(
        TransitionType type,
        ScheduledEvent event,
        String previousStatus,
        String currentStatus,
        long documentIncarnation) {
}
