package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;

import java.util.List;

/** Small builders for documents and events in transition tests. */
final class Events {

    static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    private Events() {
    }

    static ImdsDocument doc(long incarnation, ScheduledEvent... events) {
        return new ImdsDocument(incarnation, List.of(events));
    }

    static ScheduledEvent scheduled(String id) {
        return new ScheduledEvent(id, "Reboot", "VirtualMachine", List.of("vm1"), "Scheduled", NOT_BEFORE,
                "Virtual machine is going to be restarted as requested by authorized user.", "User", -1);
    }

    static ScheduledEvent started(String id) {
        return withStatus(scheduled(id), "Started", "");
    }

    static ScheduledEvent withStatus(ScheduledEvent e, String status, String notBefore) {
        return new ScheduledEvent(e.eventId(), e.eventType(), e.resourceType(), e.resources(), status, notBefore,
                e.description(), e.eventSource(), e.durationInSeconds());
    }

    static ScheduledEvent withId(ScheduledEvent e, String id) {
        return new ScheduledEvent(id, e.eventType(), e.resourceType(), e.resources(), e.eventStatus(),
                e.notBeforeRaw(), e.description(), e.eventSource(), e.durationInSeconds());
    }

    static ScheduledEvent withNotBefore(ScheduledEvent e, String notBefore) {
        return new ScheduledEvent(e.eventId(), e.eventType(), e.resourceType(), e.resources(), e.eventStatus(),
                notBefore, e.description(), e.eventSource(), e.durationInSeconds());
    }

    static ScheduledEvent withResources(ScheduledEvent e, String... resources) {
        return new ScheduledEvent(e.eventId(), e.eventType(), e.resourceType(), List.of(resources), e.eventStatus(),
                e.notBeforeRaw(), e.description(), e.eventSource(), e.durationInSeconds());
    }

    static ScheduledEvent withDuration(ScheduledEvent e, Integer duration) {
        return new ScheduledEvent(e.eventId(), e.eventType(), e.resourceType(), e.resources(), e.eventStatus(),
                e.notBeforeRaw(), e.description(), e.eventSource(), duration);
    }

    static ScheduledEvent withDescription(ScheduledEvent e, String description) {
        return new ScheduledEvent(e.eventId(), e.eventType(), e.resourceType(), e.resources(), e.eventStatus(),
                e.notBeforeRaw(), description, e.eventSource(), e.durationInSeconds());
    }
}
