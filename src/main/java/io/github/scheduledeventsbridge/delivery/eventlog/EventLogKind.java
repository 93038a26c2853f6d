package io.github.scheduledeventsbridge.delivery.eventlog;

import com.fasterxml.jackson.databind.JsonNode;

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

    /** The Event Log's own values (winnt.h EVENTLOG_*_TYPE), as ReportEvent takes them. */
    public enum EntryType {
        ERROR(0x0001), WARNING(0x0002), INFORMATION(0x0004);

        private final int code;

        EntryType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

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
}
