package io.github.scheduledeventsbridge.eventlog;

/**
 * One Event Log entry: its fixed event id, its entry type and its message. The Event Log takes at most
 * {@value #MAX_MESSAGE} characters per message string: past that the message is cut, and says so.
 */
public record EventLogEntry(int eventId, EntryType type, String message) {

    /** ReportEvent: "Each string is limited to 31,839 characters" (UTF-16 code units, as Java counts). */
    public static final int MAX_MESSAGE = 31_839;

    /** An entry about the agent itself ({@link LifeEvent}): its id and level, and the message as the log has it. */
    public static EventLogEntry of(LifeEvent event, String message) {
        return new EventLogEntry(event.eventId(), event.type(), limit(message, "the " + event.name() + " entry"));
    }

    /** {@code message}, or as much of it as the Event Log keeps, ending with a note naming {@code what} and its length. */
    public static String limit(String message, String what) {
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
