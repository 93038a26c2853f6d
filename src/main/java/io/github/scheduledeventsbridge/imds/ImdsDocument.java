package io.github.scheduledeventsbridge.imds;

import java.util.List;
import java.util.Optional;

/** A successfully read Scheduled Events document. A failed poll never produces one. */
public record ImdsDocument(long incarnation, List<ScheduledEvent> events) {

    public static final ImdsDocument NONE = new ImdsDocument(0, List.of());

    public ImdsDocument {
        events = List.copyOf(events);
    }

    public Optional<ScheduledEvent> find(String eventId) {
        return events.stream().filter(e -> e.eventId().equalsIgnoreCase(eventId)).findFirst();
    }
}
