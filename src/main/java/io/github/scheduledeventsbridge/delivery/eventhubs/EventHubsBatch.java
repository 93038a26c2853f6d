package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Message;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one spooled batch (the JSON array of CloudEvents recorded from one document) becomes Event Hubs sends
 * through camel-azure-eventhubs: decisions only, the sending is {@link EventHubsSender}'s.
 *
 * <p>Each CloudEvent becomes one event: body = the CloudEvent JSON, application properties {@code transition},
 * {@code eventType}, {@code eventId}, {@code vmName}. The component (4.18, {@code EventHubsProducerOperations})
 * turns every element of an {@code Iterable} body into an {@code EventData} from the element's bytes; when the
 * element is a Camel {@link Message}, that message's own headers become the event's application properties,
 * so the body sent is a {@code List<Message>}, one message per CloudEvent. (A plain {@code EventData} element
 * would be converted to bytes and lose its properties.) The exchange itself carries only the partition key
 * header, which the component reads for the whole send. The AMQP content-type of the events cannot be set
 * that way: the component builds each event as {@code new EventData(bytes)} plus properties and nothing else,
 * so receivers recognise the structured CloudEvent by its body ({@code specversion}).
 *
 * <p>The component hands a whole list to the SDK's {@code send(Iterable, SendOptions)}, which packs it into
 * ONE batch transfer as long as it fits the link's maximum message size (256 KB on Basic namespaces, 1 MB on
 * Standard and above). Beyond that, azure-messaging-eventhubs 5.21.2 makes a second batch (its collector,
 * created with maxNumberOfBatches=1, checks the limit only before adding another) and sends both concurrently,
 * so their order is not kept; a list needing a third fails, non-transient, without sending anything
 * ({@code AmqpException} LINK_PAYLOAD_SIZE_EXCEEDED, "EventData does not fit into maximum number of
 * batches") and would be retried for ever. A document's events are therefore cut, in order, into chunks:
 * a new chunk starts when the estimated batch size would exceed {@link #MAX_BATCH_BYTES} (below the
 * smallest tier's limit) or when the partition key changes. A typical document (a few events) is one
 * chunk, i.e. one batch. {@link EventHubsSender} sends the chunks, one after the other.
 */
public final class EventHubsBatch {

    /** Largest estimated encoded size of one send; Basic namespaces accept 256 KB, Standard and above 1 MB. */
    public static final int MAX_BATCH_BYTES = 200 * 1024;

    /** Application property names (the names; receivers filter and route on them). */
    public static final String TRANSITION = "transition";
    public static final String EVENT_TYPE = "eventType";
    public static final String EVENT_ID = "eventId";
    public static final String VM_NAME = "vmName";

    /** What the SDK adds per event and per batch beyond body and properties (AMQP sections, annotations). */
    static final int EVENT_OVERHEAD = 128;
    static final int PROPERTY_OVERHEAD = 8;
    static final int BATCH_OVERHEAD = 256;

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    /** One CloudEvent as it will be sent. */
    public record Event(byte[] body, Map<String, String> properties, String partitionKey) {
        public Event {
            properties = Map.copyOf(properties);
        }

        /** A generous estimate of the event's encoded size inside a batch. */
        public int estimatedSize() {
            int size = body.length + EVENT_OVERHEAD + (partitionKey == null ? 0 : partitionKey.length() * 4);
            for (Map.Entry<String, String> p : properties.entrySet()) {
                size += utf8Length(p.getKey()) + utf8Length(p.getValue()) + PROPERTY_OVERHEAD;
            }
            return size;
        }
    }

    /** Events sent together, as one Event Hubs batch, under one partition key (null: the hub chooses). */
    public record Chunk(String partitionKey, List<Event> events) {
        public Chunk {
            events = List.copyOf(events);
        }
    }

    // ---- decisions, pure ------------------------------------------------------------------------------------

    /** The events of a spool file: a JSON array of CloudEvents (or a single CloudEvent), in order. */
    public static List<Event> events(byte[] spooled) throws IOException {
        JsonNode root = MAPPER.readTree(spooled);
        if (root == null || !(root.isArray() || root.isObject())) {
            throw new IOException("spooled Event Hubs batch is neither a JSON array nor a CloudEvent");
        }
        List<Event> events = new ArrayList<>();
        for (JsonNode cloudEvent : root.isArray() ? root : List.of(root)) {
            events.add(event(cloudEvent));
        }
        return events;
    }

    static Event event(JsonNode cloudEvent) throws IOException {
        JsonNode data = cloudEvent.path("data");
        String vmName = vmName(data);
        Map<String, String> properties = new LinkedHashMap<>();
        put(properties, TRANSITION, data.path("transition"));
        put(properties, EVENT_TYPE, data.path("eventType"));
        put(properties, EVENT_ID, data.path("eventId"));
        if (vmName != null) {
            properties.put(VM_NAME, vmName);
        }
        return new Event(MAPPER.writeValueAsBytes(cloudEvent), properties, vmName);
    }

    /** This VM's IMDS name ({@code data.vm.name}); before IMDS named it, the first of the event's resources. */
    static String vmName(JsonNode data) {
        JsonNode name = data.path("vm").path("name");
        if (name.isTextual() && !name.asText().isBlank()) {
            return name.asText();
        }
        JsonNode first = data.path("resources").path(0);
        return first.isTextual() && !first.asText().isBlank() ? first.asText() : null;
    }

    /**
     * Cuts the events, in order, into chunks of at most {@code maxBytes} (estimated) sharing one partition key.
     * An event larger than {@code maxBytes} travels alone.
     */
    public static List<Chunk> chunks(List<Event> events, int maxBytes) {
        List<Chunk> chunks = new ArrayList<>();
        List<Event> current = new ArrayList<>();
        String key = null;
        int size = BATCH_OVERHEAD;
        for (Event event : events) {
            int eventSize = event.estimatedSize();
            boolean sameKey = Objects.equals(key, event.partitionKey());
            if (!current.isEmpty() && (!sameKey || size + eventSize > maxBytes)) {
                chunks.add(new Chunk(key, current));
                current = new ArrayList<>();
                size = BATCH_OVERHEAD;
            }
            key = event.partitionKey();
            current.add(event);
            size += eventSize;
        }
        if (!current.isEmpty()) {
            chunks.add(new Chunk(key, current));
        }
        return chunks;
    }

    private static void put(Map<String, String> properties, String name, JsonNode value) {
        if (value.isValueNode() && !value.isNull()) {
            properties.put(name, value.asText());
        }
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
