package io.github.scheduledeventsbridge.delivery.eventlog;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.scheduledeventsbridge.transitions.TransitionSummary;

/**
 * One Event Log entry: the kind's fixed id and entry type, and a message of one line a person reads in the Event
 * Viewer's list (the same headline as the email subject) followed by the CloudEvent as JSON, which a log query can
 * parse. The Event Log takes at most {@value #MAX_MESSAGE} characters per message string: past that the JSON is cut,
 * and the message says so.
 */
public record EventLogEntry(int eventId, EventLogKind.EntryType type, String message) {

    /** ReportEvent: "Each string is limited to 31,839 characters" (UTF-16 code units, as Java counts). */
    public static final int MAX_MESSAGE = 31_839;

    EventLogEntry(EventLogKind kind, String message) {
        this(kind.eventId(), kind.type(), message);
    }

    /** An entry about the agent itself ({@link LifeEvent}): its id and level, and the message as the log has it. */
    public static EventLogEntry of(LifeEvent event, String message) {
        return new EventLogEntry(event.eventId(), event.type(), limit(message, "the " + event.name() + " entry"));
    }

    /** {@code json} is the CloudEvent as it was spooled, {@code cloudEvent} the same parsed. */
    public static EventLogEntry of(JsonNode cloudEvent, String json) {
        String message = TransitionSummary.headline(cloudEvent) + "\r\n\r\n" + json.strip();
        return new EventLogEntry(EventLogKind.of(cloudEvent), limit(message, "CloudEvent " + cloudEvent.path("id").asText("?")));
    }

    static String limit(String message, String what) {
        if (message.length() <= MAX_MESSAGE) {
            return message;
        }
        String tail = "… [cut: the message of " + what + " is " + message.length()
                + " characters, the Event Log keeps " + MAX_MESSAGE + "]";
        int end = MAX_MESSAGE - tail.length();
        if (Character.isLowSurrogate(message.charAt(end)) && Character.isHighSurrogate(message.charAt(end - 1))) {
            end--;   // never half a character
        }
        return message.substring(0, end) + tail;
    }
}
