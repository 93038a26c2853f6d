package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;

import java.util.List;

/**
 * An admitted approval: every EventId asked for is in the current document; {@code events} are the Scheduled ones to
 * send to IMDS (never empty), {@code alreadyApproved} the ones this agent approved before (not sent again).
 */
public record ApprovalRequest(List<String> eventIds, List<ScheduledEvent> events, List<String> alreadyApproved,
                              ApprovalOrigin origin) {

    public ApprovalRequest {
        eventIds = List.copyOf(eventIds);
        events = List.copyOf(events);
        alreadyApproved = List.copyOf(alreadyApproved);
        if (events.isEmpty()) {
            throw new IllegalArgumentException("an approval request sends at least one event");
        }
    }

    /** One event that nothing else asked for (auto-approval, approval after prepare). */
    public static ApprovalRequest of(ScheduledEvent event, ApprovalOrigin origin) {
        return new ApprovalRequest(List.of(event.eventId()), List.of(event), List.of(), origin);
    }

    /** The EventIds sent to IMDS, as IMDS spelled them. */
    public List<String> sent() {
        return events.stream().map(ScheduledEvent::eventId).toList();
    }

    /** The body IMDS documents, {@code {"StartRequests":[{"EventId":"…"}]}}. */
    public String startRequests() {
        return ApprovalBodies.startRequests(events);
    }
}
