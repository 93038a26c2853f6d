package io.github.scheduledeventsbridge.imds;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the IMDS document strictly: anything that is not a complete document (empty, truncated, wrong
 * shape) is rejected with a reason, so that a bad answer can never look like "all events are gone".
 */
public final class ImdsDocumentParser {

    // Trailing bytes after the document, or a key given twice, mean the body is not what IMDS meant.
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.STRICT;

    /** Null: fields of an odd shape are taken leniently without a word (the state file's own copy). */
    private final EventShapes shapes;

    public ImdsDocumentParser() {
        this(false);
    }

    /** {@code warnOddShapes}: what IMDS sends, each event's odd fields said once (see {@link EventShapes}). */
    public ImdsDocumentParser(boolean warnOddShapes) {
        this.shapes = warnOddShapes ? new EventShapes() : null;
    }

    public ImdsDocument parse(String body) {
        if (body == null || body.isBlank()) {
            throw new InvalidDocumentException("empty body");
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new InvalidDocumentException("not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw new InvalidDocumentException("not a JSON object");
        }
        JsonNode incarnation = root.get("DocumentIncarnation");
        if (incarnation == null || !incarnation.canConvertToLong() || !incarnation.isIntegralNumber()) {
            throw new InvalidDocumentException("DocumentIncarnation missing or not an integer");
        }
        JsonNode events = root.get("Events");
        if (events == null || !events.isArray()) {
            throw new InvalidDocumentException("Events missing or not an array");
        }
        List<ScheduledEvent> parsed = new ArrayList<>(events.size());
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode node : events) {
            ScheduledEvent event = event(node);
            if (!seen.add(event.key())) {
                throw new InvalidDocumentException("EventId " + event.eventId() + " appears twice");
            }
            parsed.add(event);
        }
        if (shapes != null) {
            shapes.retainOnly(seen);
            for (int i = 0; i < parsed.size(); i++) {
                shapes.check(parsed.get(i).key(), parsed.get(i).eventId(), events.get(i));
            }
        }
        return new ImdsDocument(incarnation.asLong(), parsed);
    }

    private static ScheduledEvent event(JsonNode node) {
        if (!node.isObject()) {
            throw new InvalidDocumentException("an entry of Events is not an object");
        }
        String eventId = text(node, "EventId");
        String status = text(node, "EventStatus");
        if (eventId == null || eventId.isBlank()) {
            throw new InvalidDocumentException("an event has no EventId");
        }
        if (status == null || status.isBlank()) {
            throw new InvalidDocumentException("event " + eventId + " has no EventStatus");
        }
        List<String> resources = new ArrayList<>();
        JsonNode resourceNodes = node.get("Resources");
        if (resourceNodes != null && resourceNodes.isArray()) {
            resourceNodes.forEach(r -> resources.add(r.asText()));
        }
        JsonNode duration = node.get("DurationInSeconds");
        Integer durationInSeconds = duration == null || duration.isNull() || !duration.canConvertToInt()
                ? null : duration.asInt();
        return new ScheduledEvent(eventId, text(node, "EventType"), text(node, "ResourceType"), resources, status,
                text(node, "NotBefore"), text(node, "Description"), text(node, "EventSource"), durationInSeconds);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    /** The document in IMDS's own shape, for the state file and the approval read side. */
    public static ObjectNode toJson(ImdsDocument document) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("DocumentIncarnation", document.incarnation());
        ArrayNode events = root.putArray("Events");
        for (ScheduledEvent e : document.events()) {
            ObjectNode node = events.addObject();
            node.put("EventId", e.eventId());
            node.put("EventStatus", e.eventStatus());
            node.put("EventType", e.eventType());
            node.put("ResourceType", e.resourceType());
            ArrayNode resources = node.putArray("Resources");
            e.resources().forEach(resources::add);
            node.put("NotBefore", e.notBeforeRaw());
            node.put("Description", e.description());
            node.put("EventSource", e.eventSource());
            if (e.durationInSeconds() == null) {
                node.putNull("DurationInSeconds");
            } else {
                node.put("DurationInSeconds", e.durationInSeconds());
            }
        }
        return root;
    }
}
