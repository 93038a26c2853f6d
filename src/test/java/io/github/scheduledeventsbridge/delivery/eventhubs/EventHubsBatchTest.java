package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Chunk;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Event;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.azure.eventhubs.EventHubsConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

class EventHubsBatchTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    /** A CloudEvent shaped like CloudEventFactory's, {@code vm} only when the VM is known. */
    static ObjectNode cloudEvent(int i, String transition, String vmName, String... resources) {
        ObjectNode ce = JsonNodeFactory.instance.objectNode();
        ce.put("specversion", "1.0");
        ce.put("id", "id-" + i);
        ce.put("source", "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/x");
        ce.put("type", "io.github.scheduledeventsbridge.transition." + transition);
        ce.put("subject", "EV-" + i);
        ObjectNode data = ce.putObject("data");
        data.put("transition", transition);
        data.put("eventId", "EV-" + i);
        data.put("eventType", "Reboot");
        ArrayNode names = data.putArray("resources");
        for (String r : resources) {
            names.add(r);
        }
        data.put("description", "x".repeat(600)); // about the size of a real one: ~1 KB
        if (vmName != null) {
            data.putObject("vm").put("name", vmName).put("vmId", "1111").put("location", "westeurope");
        }
        return ce;
    }

    static byte[] spoolFile(ObjectNode... cloudEvents) throws IOException {
        ArrayNode array = MAPPER.createArrayNode();
        for (ObjectNode ce : cloudEvents) {
            array.add(ce);
        }
        return MAPPER.writeValueAsBytes(array);
    }

    @Test
    @DisplayName("each CloudEvent becomes an event: body = the CloudEvent, the four properties, key = data.vm.name")
    void eventsCarryTheCloudEventAndItsProperties() throws IOException {
        ObjectNode first = cloudEvent(1, "Scheduled", "vm-a", "vm-a", "vm-b");
        ObjectNode second = cloudEvent(2, "Started", "vm-a", "vm-b");

        List<Event> events = EventHubsBatch.events(spoolFile(first, second));

        assertThat(events).hasSize(2);
        assertThat(MAPPER.readTree(events.get(0).body())).isEqualTo(first);
        assertThat(MAPPER.readTree(events.get(1).body())).isEqualTo(second);
        assertThat(events.get(0).properties()).containsOnly(entry("transition", "Scheduled"),
                entry("eventType", "Reboot"), entry("eventId", "EV-1"), entry("vmName", "vm-a"));
        assertThat(events.get(1).properties()).containsEntry("transition", "Started").containsEntry("eventId", "EV-2");
        assertThat(events).extracting(Event::partitionKey)
                .as("the VM's name, even where its resources list another VM first").containsExactly("vm-a", "vm-a");
    }

    @Test
    @DisplayName("before IMDS named the VM, the key and vmName are the first of data.resources; none if empty")
    void vmNameFallsBackToTheFirstResource() throws IOException {
        List<Event> events = EventHubsBatch.events(spoolFile(
                cloudEvent(1, "Scheduled", null, "WestNO_0", "WestNO_1"), cloudEvent(2, "Scheduled", null)));

        assertThat(events.get(0).partitionKey()).isEqualTo("WestNO_0");
        assertThat(events.get(0).properties()).containsEntry("vmName", "WestNO_0");
        assertThat(events.get(1).partitionKey()).isNull();
        assertThat(events.get(1).properties()).doesNotContainKey("vmName").containsEntry("eventId", "EV-2");
    }

    @Test
    void aSingleCloudEventIsAcceptedAndGarbageIsRefused() throws IOException {
        assertThat(EventHubsBatch.events(MAPPER.writeValueAsBytes(cloudEvent(1, "Started", "vm")))).hasSize(1);
        assertThatThrownBy(() -> EventHubsBatch.events("42".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> EventHubsBatch.events("[{\"id\":".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class);
    }

    @Test
    @DisplayName("a document's few transitions are one chunk, i.e. one batch")
    void aSmallDocumentIsOneChunk() throws IOException {
        List<Event> events = EventHubsBatch.events(spoolFile(cloudEvent(1, "Scheduled", "vm"),
                cloudEvent(2, "Scheduled", "vm"), cloudEvent(3, "Scheduled", "vm")));

        List<Chunk> chunks = EventHubsBatch.chunks(events, EventHubsBatch.MAX_BATCH_BYTES);

        assertThat(chunks).hasSize(1);
        assertThat(chunks.get(0).partitionKey()).isEqualTo("vm");
        assertThat(chunks.get(0).events()).containsExactlyElementsOf(events);
    }

    @Test
    @DisplayName("1000 events are cut, in order, into chunks below the size limit")
    void aBigDocumentIsCutInOrderIntoChunksThatFit() throws IOException {
        ObjectNode[] cloudEvents = IntStream.range(0, 1000).mapToObj(i -> cloudEvent(i, "Scheduled", "vm", "vm"))
                .toArray(ObjectNode[]::new);
        List<Event> events = EventHubsBatch.events(spoolFile(cloudEvents));

        List<Chunk> chunks = EventHubsBatch.chunks(events, EventHubsBatch.MAX_BATCH_BYTES);

        assertThat(chunks).hasSizeGreaterThan(1);
        List<Event> rejoined = new ArrayList<>();
        chunks.forEach(c -> rejoined.addAll(c.events()));
        assertThat(rejoined).containsExactlyElementsOf(events);
        assertThat(chunks).allSatisfy(c -> {
            assertThat(c.partitionKey()).isEqualTo("vm");
            assertThat(EventHubsBatch.BATCH_OVERHEAD + c.events().stream().mapToInt(Event::estimatedSize).sum())
                    .isLessThanOrEqualTo(EventHubsBatch.MAX_BATCH_BYTES);
        });
        assertThat(chunks.subList(0, chunks.size() - 1)).as("chunks are filled, not one event each")
                .allSatisfy(c -> assertThat(c.events().size()).isGreaterThan(100));
    }

    @Test
    @DisplayName("a change of partition key starts a new chunk, so each batch has the key of all its events")
    void aChangeOfKeyStartsANewChunk() throws IOException {
        List<Event> events = EventHubsBatch.events(spoolFile(cloudEvent(1, "Scheduled", null, "a"),
                cloudEvent(2, "Scheduled", null, "a"), cloudEvent(3, "Scheduled", null, "b"),
                cloudEvent(4, "Scheduled", null), cloudEvent(5, "Scheduled", null, "a")));

        List<Chunk> chunks = EventHubsBatch.chunks(events, EventHubsBatch.MAX_BATCH_BYTES);

        assertThat(chunks).extracting(Chunk::partitionKey).containsExactly("a", "b", null, "a");
        assertThat(chunks).extracting(c -> c.events().size()).containsExactly(2, 1, 1, 1);
    }

    @Test
    void anEventBiggerThanTheLimitTravelsAlone() throws IOException {
        List<Event> events = EventHubsBatch.events(spoolFile(cloudEvent(1, "Scheduled", "vm"),
                cloudEvent(2, "Scheduled", "vm"), cloudEvent(3, "Scheduled", "vm")));

        List<Chunk> chunks = EventHubsBatch.chunks(events, 500);

        assertThat(chunks).extracting(c -> c.events().size()).containsExactly(1, 1, 1);
        assertThat(EventHubsBatch.chunks(List.of(), 500)).isEmpty();
    }

    @Test
    @DisplayName("route steps: body = List<Message> with per-event headers, exchange keeps only the partition key")
    void routeStepsPrepareOneChunkAtATime() throws Exception {
        EventHubsBatch batch = new EventHubsBatch();
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(spoolFile(cloudEvent(1, "Scheduled", null, "a"), cloudEvent(2, "Started", null, "a"),
                cloudEvent(3, "Started", null, "b")));
        exchange.getMessage().setHeader("Internal", "must not reach the hub");

        batch.toEvents(exchange);
        assertThat(exchange.getProperty(EventHubsBatch.CHUNK_COUNT, Integer.class)).isEqualTo(2);
        assertThat(exchange.getProperty(EventHubsBatch.NEXT_CHUNK, Integer.class)).isZero();

        batch.nextChunk(exchange);
        assertThat(exchange.getMessage().getHeaders()).containsOnly(entry(EventHubsConstants.PARTITION_KEY, "a"));
        List<?> body = exchange.getMessage().getBody(List.class);
        assertThat(body).hasSize(2).allSatisfy(m -> assertThat(m).isInstanceOf(Message.class));
        Message first = (Message) body.get(0);
        assertThat(first.getExchange()).as("the component reads the type converter through it").isSameAs(exchange);
        assertThat(first.getHeaders()).containsOnly(entry("transition", "Scheduled"), entry("eventType", "Reboot"),
                entry("eventId", "EV-1"), entry("vmName", "a"));
        JsonNode json = MAPPER.readTree(first.getBody(byte[].class));
        assertThat(json.path("id").asText()).isEqualTo("id-1");
        assertThat(((Message) body.get(1)).getHeader("transition")).isEqualTo("Started");

        batch.chunkSent(exchange);
        assertThat(exchange.getProperty(EventHubsBatch.NEXT_CHUNK, Integer.class)).isEqualTo(1);
    }

    @Test
    @DisplayName("a redelivery (message restored, properties kept) resumes with the first unconfirmed chunk")
    void aRetryResumesAfterTheConfirmedChunks() throws Exception {
        EventHubsBatch batch = new EventHubsBatch();
        byte[] spooled = spoolFile(cloudEvent(1, "Scheduled", null, "a"), cloudEvent(2, "Scheduled", null, "b"));
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(spooled);
        batch.toEvents(exchange);
        batch.nextChunk(exchange);
        batch.chunkSent(exchange); // chunk "a" confirmed, then chunk "b" failed

        exchange.getMessage().setBody(spooled); // what the error handler restores before redelivering
        exchange.getMessage().getHeaders().clear();
        batch.toEvents(exchange);
        batch.nextChunk(exchange);

        assertThat(exchange.getMessage().getHeader(EventHubsConstants.PARTITION_KEY)).isEqualTo("b");
        List<?> body = exchange.getMessage().getBody(List.class);
        assertThat(body).hasSize(1);
        assertThat(((Message) body.get(0)).getHeader("eventId")).isEqualTo("EV-2");
    }
}
