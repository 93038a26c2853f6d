package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;

/**
 * One change of one event. {@code event} is the event as it is now, or as it was last seen when it
 * vanished (Completed, Cancelled); {@code currentStatus} is null when the event is no longer listed.
 * {@code approval} says who approved, for Approved transitions only. {@code startObserved} is false on a
 * Completed or Cancelled decided on evidence because the agent was not watching when the event left
 * Scheduled (see {@link UnwatchedEnding}), and null otherwise.
 */
public record DetectedTransition(
        TransitionType type,
        ScheduledEvent event,
        String previousStatus,
        String currentStatus,
        long documentIncarnation,
        Approval approval,
        Boolean startObserved) {

    /** Who approved: {@code remote} (the approval API) or {@code policy} (with the rule), and whether only as a dry run. */
    public record Approval(String by, String rule, boolean dryRun) {
    }

    public DetectedTransition(TransitionType type, ScheduledEvent event, String previousStatus, String currentStatus,
                              long documentIncarnation, Approval approval) {
        this(type, event, previousStatus, currentStatus, documentIncarnation, approval, null);
    }

    public DetectedTransition(TransitionType type, ScheduledEvent event, String previousStatus, String currentStatus,
                              long documentIncarnation) {
        this(type, event, previousStatus, currentStatus, documentIncarnation, null, null);
    }
}
