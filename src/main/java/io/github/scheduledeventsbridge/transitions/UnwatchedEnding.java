package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;

import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/**
 * A Scheduled event that is gone although the agent never saw it Started: it was down, could not record,
 * or the VM rebooted under it. Defaulting to Cancelled would report a reboot that happened as one that
 * did not, so the ending is decided on evidence:
 * <ul>
 *   <li>Reboot, Redeploy: Completed if the VM booted after the last observation, else Cancelled;</li>
 *   <li>any other type (or no boot evidence): Completed if its NotBefore had passed, else Cancelled
 *       (an event cannot start before NotBefore, and Azure cancels rarely).</li>
 * </ul>
 */
public final class UnwatchedEnding {

    private static final Set<String> REBOOTS = Set.of("REBOOT", "REDEPLOY");

    private UnwatchedEnding() {
    }

    public static TransitionType of(ScheduledEvent event, Continuity continuity) {
        String type = event.eventType() == null ? "" : event.eventType().toUpperCase(Locale.ROOT);
        if (REBOOTS.contains(type) && continuity.bootTime() != null && continuity.lastObserved() != null) {
            return continuity.bootTime().isAfter(continuity.lastObserved())
                    ? TransitionType.Completed : TransitionType.Cancelled;
        }
        Instant notBefore = event.notBefore();
        return notBefore != null && !notBefore.isAfter(continuity.now())
                ? TransitionType.Completed : TransitionType.Cancelled;
    }
}
