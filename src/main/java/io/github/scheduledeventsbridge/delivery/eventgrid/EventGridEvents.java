package io.github.scheduledeventsbridge.delivery.eventgrid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * One CloudEvent of the agent as an event of the Event Grid schema (docs/messages.md, "Event Grid"): {@code data}
 * has the shape of the platform's own Event Grid feed of Scheduled Events ({@code resourceInfo} with the event's
 * properties spelled as the platform spells them) plus the agent's {@code transition} and, in {@code bridge}, the
 * CloudEvent's whole {@code data}. The id is the CloudEvent's, derived from the transition itself, so the same
 * transition always gets the same id and consumers deduplicate.
 */
public final class EventGridEvents {

    /** The version of this {@code data} shape; a change that could break a consumer gets a new one. */
    public static final String DATA_VERSION = "1.0";
    /** As in the platform's {@code resourceInfo.type}. */
    public static final String RESOURCE_TYPE = "microsoft.maintenance/scheduledEvents";
    /** Between the VM's resource id and the EventId in {@code subject} and {@code resourceInfo.id}, as the platform writes it. */
    public static final String PROVIDER_PATH = "/providers/microsoft.maintenance/scheduledevents/";

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    /** The platform (and IMDS) write NotBefore as RFC 1123 in GMT: {@code Mon, 19 Sep 2025 18:29:47 GMT}. */
    private static final DateTimeFormatter RFC_1123 = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.ENGLISH).withZone(ZoneOffset.UTC);

    private EventGridEvents() {
    }

    public static ObjectNode event(JsonNode cloudEvent) {
        JsonNode data = cloudEvent.path("data");
        String eventId = text(data, "eventId", cloudEvent.path("subject").asText(""));
        // Scoped to the VM that saw it (its IMDS resourceId, the CloudEvent's source): the platform's is the
        // VM's or its scale set's, which IMDS does not tell.
        String resourceId = cloudEvent.path("source").asText("") + PROVIDER_PATH + eventId;

        ObjectNode event = MAPPER.createObjectNode();
        event.put("id", cloudEvent.path("id").asText());
        event.put("subject", resourceId);
        event.put("eventType", cloudEvent.path("type").asText());
        event.put("eventTime", cloudEvent.path("time").asText());
        ObjectNode out = event.putObject("data");
        ObjectNode resourceInfo = out.putObject("resourceInfo");
        resourceInfo.put("id", resourceId);
        resourceInfo.put("name", eventId);
        resourceInfo.put("type", RESOURCE_TYPE);
        JsonNode location = data.path("vm").path("location");
        if (location.isTextual() && !location.asText().isBlank()) {
            resourceInfo.put("location", location.asText());
        }
        ObjectNode properties = resourceInfo.putObject("properties");
        properties.set("DurationInSeconds", data.path("durationInSeconds").isNumber()
                ? data.get("durationInSeconds") : MAPPER.nullNode());
        properties.put("Description", text(data, "description", null));
        properties.put("EventId", eventId);
        properties.put("EventSource", text(data, "eventSource", null));
        properties.put("EventStatus", platformStatus(text(data, "transition", null), text(data, "eventStatus", null)));
        properties.put("EventType", text(data, "eventType", null));
        properties.put("NotBefore", rfc1123(text(data, "notBefore", null)));
        properties.set("Resources", data.path("resources").isArray() ? data.get("resources") : MAPPER.createArrayNode());
        properties.put("ResourceType", text(data, "resourceType", null));
        out.put("transition", text(data, "transition", null));
        out.set("bridge", data.isObject() ? data : MAPPER.createObjectNode());
        event.put("dataVersion", DATA_VERSION);
        return event;
    }

    /**
     * The status as the platform's feed spells it: it has Completed and Canceled (one l) where IMDS shows nothing;
     * a Rescheduled or Approved event is still Scheduled (or Started) there.
     */
    static String platformStatus(String transition, String imdsStatus) {
        if ("Completed".equals(transition)) {
            return "Completed";
        }
        if ("Cancelled".equals(transition)) {
            return "Canceled";
        }
        return imdsStatus;
    }

    /** The agent's ISO-8601 NotBefore back in the platform's RFC 1123; empty when there is none (Started). */
    static String rfc1123(String iso) {
        if (iso == null || iso.isBlank()) {
            return "";
        }
        try {
            return RFC_1123.format(Instant.parse(iso));
        } catch (DateTimeParseException notIso) {
            return iso;
        }
    }

    private static String text(JsonNode node, String field, String otherwise) {
        JsonNode value = node.path(field);
        return value.isValueNode() && !value.isNull() ? value.asText() : otherwise;
    }
}
