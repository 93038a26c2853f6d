package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.Message;
import org.apache.camel.component.azure.eventhubs.EventHubsConstants;
import org.apache.camel.support.DefaultMessage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Route steps that turn one spooled batch (the JSON array of CloudEvents recorded from one document) into
 * Event Hubs sends through camel-azure-eventhubs.
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
 * chunk, i.e. one batch.
 *
 * <p>Chunks go one after the other; {@value #NEXT_CHUNK} counts those the hub confirmed. It is an exchange
 * property, so it survives the sink's redeliveries (which restore the message, not the properties): a retry
 * resumes with the first unconfirmed chunk instead of repeating confirmed ones.
 */
public final class EventHubsBatch {

    /** Largest estimated encoded size of one send; Basic namespaces accept 256 KB, Standard and above 1 MB. */
    public static final int MAX_BATCH_BYTES = 200 * 1024;

    /** Exchange properties used by routes/eventhubs-sink.yaml. */
    public static final String CHUNKS = "eventHubsChunks";
    public static final String CHUNK_COUNT = "eventHubsChunkCount";
    public static final String NEXT_CHUNK = "eventHubsNextChunk";

    /** Application property names (the names; receivers filter and route on them). */
    public static final String TRANSITION = "transition";
    public static final String EVENT_TYPE = "eventType";
    public static final String EVENT_ID = "eventId";
    public static final String VM_NAME = "vmName";

    /** What the SDK adds per event and per batch beyond body and properties (AMQP sections, annotations). */
    static final int EVENT_OVERHEAD = 128;
    static final int PROPERTY_OVERHEAD = 8;
    static final int BATCH_OVERHEAD = 256;

    private static final ObjectMapper MAPPER = new ObjectMapper();

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

    // ---- route steps ---------------------------------------------------------------------------------------

    /**
     * First step of an attempt: the spooled bytes become the chunks to send. The count of chunks already
     * confirmed is kept from an earlier attempt of the same exchange.
     */
    public void toEvents(Exchange exchange) throws IOException, InvalidPayloadException {
        byte[] spooled = exchange.getMessage().getMandatoryBody(byte[].class);
        List<Chunk> chunks = chunks(events(spooled), MAX_BATCH_BYTES);
        exchange.setProperty(CHUNKS, chunks);
        exchange.setProperty(CHUNK_COUNT, chunks.size());
        if (exchange.getProperty(NEXT_CHUNK) == null) {
            exchange.setProperty(NEXT_CHUNK, 0);
        }
    }

    /**
     * The next unconfirmed chunk becomes the body ({@code List<Message>}, one message per event, its headers
     * being the event's application properties). Every exchange header is dropped except the partition key,
     * so nothing internal leaks to the hub.
     */
    @SuppressWarnings("unchecked")
    public void nextChunk(Exchange exchange) {
        List<Chunk> chunks = exchange.getProperty(CHUNKS, List.class);
        Chunk chunk = chunks.get(exchange.getProperty(NEXT_CHUNK, Integer.class));
        List<Message> messages = new ArrayList<>(chunk.events().size());
        for (Event event : chunk.events()) {
            DefaultMessage message = new DefaultMessage(exchange); // the component needs message.getExchange()
            message.setBody(event.body());
            message.getHeaders().putAll(event.properties());
            messages.add(message);
        }
        Message out = exchange.getMessage();
        out.getHeaders().clear();
        if (chunk.partitionKey() != null) {
            out.setHeader(EventHubsConstants.PARTITION_KEY, chunk.partitionKey());
        }
        out.setBody(messages);
    }

    /** The hub confirmed the chunk just sent. */
    public void chunkSent(Exchange exchange) {
        exchange.setProperty(NEXT_CHUNK, exchange.getProperty(NEXT_CHUNK, Integer.class) + 1);
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
