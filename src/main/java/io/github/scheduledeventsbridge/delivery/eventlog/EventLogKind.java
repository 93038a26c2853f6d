package io.github.scheduledeventsbridge.delivery.eventlog;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.scheduledeventsbridge.eventlog.EntryType;
import io.github.scheduledeventsbridge.eventlog.EventLogEntry;
import io.github.scheduledeventsbridge.transitions.TransitionSummary;

import java.util.Arrays;

/**
 * What one Event Log entry is about, with its fixed event id and entry type: monitoring (an Azure Monitor Agent data
 * collection rule, a SCOM rule, a scheduled task) selects entries by source and id. These ids are an interface: never
 * renumber one. Warnings are what a person should look at before the VM is affected (scheduled, or starting now), an
 * error is a command of the operator's that did not succeed; everything else is information.
 */
public enum EventLogKind {
    SCHEDULED("Scheduled", 1001, EntryType.WARNING),
    STARTED("Started", 1002, EntryType.WARNING),
    RESCHEDULED("Rescheduled", 1003, EntryType.INFORMATION),
    COMPLETED("Completed", 1004, EntryType.INFORMATION),
    CANCELLED("Cancelled", 1005, EntryType.INFORMATION),
    APPROVED("Approved", 1006, EntryType.INFORMATION),
    /** An auto-approval in dry-run mode: what would have been approved; nothing was sent to IMDS. */
    APPROVAL_DRY_RUN("Approved, dry run", 1007, EntryType.INFORMATION),
    ACTION_SUCCEEDED("ActionSucceeded", 1101, EntryType.INFORMATION),
    /** A prepare or recover command that exited non-zero, timed out or could not be started. */
    ACTION_FAILED("ActionFailed", 1102, EntryType.ERROR),
    /** A kind this version does not know (a message spooled by a later version). */
    OTHER("any other", 1999, EntryType.INFORMATION);

    private final String transition;
    private final int eventId;
    private final EntryType type;

    EventLogKind(String transition, int eventId, EntryType type) {
        this.transition = transition;
        this.eventId = eventId;
        this.type = type;
    }

    /** The CloudEvent's {@code data.transition} this kind stands for (or a description, for the last two). */
    public String transition() {
        return transition;
    }

    public int eventId() {
        return eventId;
    }

    public EntryType type() {
        return type;
    }

    public static EventLogKind of(JsonNode cloudEvent) {
        JsonNode data = cloudEvent.path("data");
        String transition = data.path("transition").asText("");
        if (transition.equals("Approved") && data.path("approval").path("dryRun").asBoolean(false)) {
            return APPROVAL_DRY_RUN;
        }
        return Arrays.stream(values()).filter(k -> k != APPROVAL_DRY_RUN && k.transition.equals(transition))
                .findFirst().orElse(OTHER);
    }

    /**
     * The entry for a transition or an action outcome: the kind's id and type, and a message of one line a person reads
     * in the Event Viewer's list (the same headline as the email subject) followed by the CloudEvent as JSON, which a
     * log query can parse. {@code json} is the CloudEvent as it was spooled, {@code cloudEvent} the same parsed.
     */
    public static EventLogEntry entry(JsonNode cloudEvent, String json) {
        EventLogKind kind = of(cloudEvent);
        String message = TransitionSummary.headline(cloudEvent) + "\r\n\r\n" + json.strip();
        return new EventLogEntry(kind.eventId(), kind.type(),
                EventLogEntry.limit(message, "CloudEvent " + cloudEvent.path("id").asText("?")));
    }
}
