package io.github.scheduledeventsbridge.imds;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One entry of the IMDS {@code Events} array, as IMDS sent it. {@code notBeforeRaw} keeps the original
 * text (RFC 1123, ISO-8601 or empty) while {@link #notBefore()} is its parsed instant, or null.
 */
public record ScheduledEvent(
        String eventId,
        String eventType,
        String resourceType,
        List<String> resources,
        String eventStatus,
        String notBeforeRaw,
        String description,
        String eventSource,
        Integer durationInSeconds) {

    public static final String SCHEDULED = "Scheduled";
    public static final String STARTED = "Started";

    public ScheduledEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(eventStatus, "eventStatus");
        resources = resources == null ? List.of() : List.copyOf(resources);
    }

    /** IMDS ids are GUIDs; Microsoft's own samples mix upper and lower case, so identity ignores case. */
    public String key() {
        return eventId.toUpperCase(Locale.ROOT);
    }

    public Instant notBefore() {
        return NotBefore.parse(notBeforeRaw);
    }

    public boolean isScheduled() {
        return SCHEDULED.equals(eventStatus);
    }

    public boolean isStarted() {
        return STARTED.equals(eventStatus);
    }

    public boolean names(String resourceName) {
        return resourceName != null && resources.stream().anyMatch(resourceName::equalsIgnoreCase);
    }
}
