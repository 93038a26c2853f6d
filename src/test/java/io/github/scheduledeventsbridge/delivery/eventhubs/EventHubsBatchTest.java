package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Chunk;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Event;
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
}
