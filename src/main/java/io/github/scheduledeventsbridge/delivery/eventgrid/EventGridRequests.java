package io.github.scheduledeventsbridge.delivery.eventgrid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;
import io.github.scheduledeventsbridge.delivery.WebhookTarget;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Route steps (routes/eventgrid-sink.yaml) that turn one spooled batch (the CloudEvents recorded from one document)
 * into the POSTs an Event Grid topic accepts: JSON arrays of at most {@link #MAX_REQUEST_BYTES} each (Event Grid
 * refuses a request over 1 MB), in order, in the topic's schema. {@value #NEXT} counts the requests the topic
 * accepted; it is an exchange property, so it survives the lane's redeliveries (which restore the message, not the
 * properties): a retry resumes with the first request not yet accepted.
 */
public final class EventGridRequests {

    /** Below Event Grid's limit of 1 MB per request, whether a MB is 10^6 or 2^20 bytes. */
    public static final int MAX_REQUEST_BYTES = 1_000_000;

    /** Exchange properties used by routes/eventgrid-sink.yaml. */
    public static final String REQUESTS = "eventGridRequests";
    public static final String COUNT = "eventGridRequestCount";
    public static final String NEXT = "eventGridNextRequest";

    static final String EVENT_GRID_CONTENT_TYPE = "application/json; charset=utf-8";
    static final String CLOUDEVENTS_BATCH_CONTENT_TYPE = "application/cloudevents-batch+json; charset=utf-8";

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    /** First step of an attempt: the spooled bytes become the request bodies; those already accepted stay so. */
    public void toRequests(Exchange exchange) throws IOException, InvalidPayloadException {
        WebhookFormat format = exchange.getProperty(Sink.PROPERTY, Sink.class).targetAs(WebhookTarget.class).format();
        List<byte[]> requests = requests(events(exchange.getMessage().getMandatoryBody(byte[].class), format),
                MAX_REQUEST_BYTES);
        exchange.setProperty(REQUESTS, requests);
        exchange.setProperty(COUNT, requests.size());
        if (exchange.getProperty(NEXT) == null) {
            exchange.setProperty(NEXT, 0);
        }
    }

    /** The next request not yet accepted becomes the body, with the schema's content type. */
    @SuppressWarnings("unchecked")
    public void nextRequest(Exchange exchange) {
        List<byte[]> requests = exchange.getProperty(REQUESTS, List.class);
        WebhookFormat format = exchange.getProperty(Sink.PROPERTY, Sink.class).targetAs(WebhookTarget.class).format();
        exchange.getMessage().setBody(requests.get(exchange.getProperty(NEXT, Integer.class)));
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, format == WebhookFormat.EVENTGRID_CLOUDEVENTS
                ? CLOUDEVENTS_BATCH_CONTENT_TYPE : EVENT_GRID_CONTENT_TYPE);
    }

    /** The topic accepted the request just sent. */
    public void requestSent(Exchange exchange) {
        exchange.setProperty(NEXT, exchange.getProperty(NEXT, Integer.class) + 1);
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
