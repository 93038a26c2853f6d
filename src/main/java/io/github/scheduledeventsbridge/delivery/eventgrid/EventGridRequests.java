package io.github.scheduledeventsbridge.delivery.eventgrid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One spooled batch (the CloudEvents recorded from one document) as the POSTs an Event Grid topic accepts: JSON
 * arrays of at most {@link #MAX_REQUEST_BYTES} each (Event Grid refuses a request over 1 MB), in order, in the
 * topic's schema. {@link EventGridSender} sends them.
 */
public final class EventGridRequests {

    /** Below Event Grid's limit of 1 MB per request, whether a MB is 10^6 or 2^20 bytes. */
    public static final int MAX_REQUEST_BYTES = 1_000_000;

    static final String EVENT_GRID_CONTENT_TYPE = "application/json; charset=utf-8";
    static final String CLOUDEVENTS_BATCH_CONTENT_TYPE = "application/cloudevents-batch+json; charset=utf-8";

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private EventGridRequests() {
    }

    /** The content type of a request in the topic's schema. */
    public static String contentType(WebhookFormat format) {
        return format == WebhookFormat.EVENTGRID_CLOUDEVENTS ? CLOUDEVENTS_BATCH_CONTENT_TYPE : EVENT_GRID_CONTENT_TYPE;
    }

    /** Each CloudEvent of a spool file (a JSON array, or one CloudEvent), serialised in the topic's schema. */
    public static List<byte[]> events(byte[] spooled, WebhookFormat format) throws IOException {
        JsonNode root = MAPPER.readTree(spooled);
        if (root == null || !(root.isArray() || root.isObject())) {
            throw new IOException("spooled Event Grid batch is neither a JSON array nor a CloudEvent");
        }
        List<byte[]> events = new ArrayList<>();
        for (JsonNode cloudEvent : root.isArray() ? root : List.of(root)) {
            events.add(MAPPER.writeValueAsBytes(format == WebhookFormat.EVENTGRID_CLOUDEVENTS
                    ? cloudEvent : EventGridEvents.event(cloudEvent)));
        }
        return events;
    }

    /**
     * The events, in order, as JSON arrays of at most {@code maxBytes} each. An event larger than that on its own
     * travels alone (the topic refuses it, and it is dead-lettered like any refused message).
     */
    public static List<byte[]> requests(List<byte[]> events, int maxBytes) {
        List<byte[]> requests = new ArrayList<>();
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        for (byte[] event : events) {
            // "[" + events joined by "," + "]": this event adds its bytes and one separator or bracket.
            if (current.size() > 0 && current.size() + 1 + event.length + 1 > maxBytes) {
                requests.add(close(current));
                current = new ByteArrayOutputStream();
            }
            current.write(current.size() == 0 ? '[' : ',');
            current.writeBytes(event);
        }
        if (current.size() > 0) {
            requests.add(close(current));
        }
        return requests;
    }

    private static byte[] close(ByteArrayOutputStream request) {
        request.write(']');
        return request.toByteArray();
    }
}
