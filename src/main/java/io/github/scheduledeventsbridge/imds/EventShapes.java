package io.github.scheduledeventsbridge.imds;

import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * IMDS fields of an unexpected shape, which the parser takes leniently (a document is refused only when it cannot be
 * a document): said once per event, as a WARN, while that event is listed, so that nothing is taken silently. A
 * {@code Resources} that is not an array becomes no resources (no VM is named: {@code bridge.filter.resources=own}
 * drops the event), an {@code EventStatus} other than Scheduled or Started gives no transition.
 */
final class EventShapes {

    private static final Logger LOG = LoggerFactory.getLogger(EventShapes.class);
    private static final Set<String> STATUSES = Set.of(ScheduledEvent.SCHEDULED, ScheduledEvent.STARTED);
    private static final Set<String> TYPES = Set.of("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate");
    private static final List<String> TEXT_FIELDS = List.of("EventType", "ResourceType", "NotBefore", "Description",
            "EventSource");

    /** Keys of the events already warned about. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** Warns about this event's odd fields, unless it was warned about before. */
    void check(String key, String eventId, JsonNode event) {
        if (warned.contains(key)) {
            return;
        }
        List<String> problems = problems(event);
        if (!problems.isEmpty()) {
            warned.add(key);
            LOG.warn("IMDS event {} has fields of an unexpected shape (said once per event): {}", eventId,
                    String.join("; ", problems));
        }
    }

    /** Forgets the events no longer listed: one that comes back odd is warned about again. */
    void retainOnly(Set<String> keys) {
        warned.retainAll(keys);
    }

    static List<String> problems(JsonNode event) {
        List<String> problems = new ArrayList<>();
        JsonNode resources = event.get("Resources");
        if (resources != null && !resources.isNull()) {
            if (!resources.isArray()) {
                problems.add("Resources is " + kind(resources) + ", not an array: taken as no resources");
            } else {
                resources.forEach(r -> {
                    if (!r.isTextual()) {
                        problems.add("Resources holds " + kind(r) + ": taken as its text '" + r.asText() + "'");
                    }
                });
            }
        }
        JsonNode status = event.get("EventStatus");
        if (!status.isTextual() || !STATUSES.contains(status.asText())) {
            problems.add("EventStatus '" + status.asText() + "' is neither Scheduled nor Started: no transition comes from it");
        }
        JsonNode type = event.get("EventType");
        if (type != null && type.isTextual() && !TYPES.contains(type.asText())) {
            problems.add("EventType '" + type.asText() + "' is none of " + String.join(", ", TYPES.stream().sorted().toList())
                    + ": passed on as sent");
        }
        for (String field : TEXT_FIELDS) {
            JsonNode value = event.get(field);
            if (value != null && !value.isNull() && !value.isTextual()) {
                problems.add(field + " is " + kind(value) + ", not a string: taken as '" + value.asText() + "'");
            }
        }
        JsonNode notBefore = event.get("NotBefore");
        if (notBefore != null && notBefore.isTextual() && !notBefore.asText().isBlank()
                && NotBefore.parse(notBefore.asText()) == null) {
            problems.add("NotBefore '" + notBefore.asText() + "' is not a date: taken as none");
        }
        JsonNode duration = event.get("DurationInSeconds");
        if (duration != null && !duration.isNull() && !duration.canConvertToInt()) {
            problems.add("DurationInSeconds is " + kind(duration) + ", not a whole number: taken as absent");
        } else if (duration != null && !duration.isNull() && !duration.isIntegralNumber()) {
            problems.add("DurationInSeconds " + duration.asText() + " is not a whole number: taken as " + duration.asInt());
        }
        return problems;
    }

    private static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
