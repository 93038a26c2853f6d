package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.CreateBatchOptions;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Chunk;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Event;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.Batch;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.ReceivedMessage;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.azure.eventhubs.EventHubsConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * What camel-azure-eventhubs 4.18 does with the bodies the sink sends, against the AMQP peer: the facts
 * EventHubsBatch relies on (per-event properties from List&lt;Message&gt;, one batch per send, a list that
 * does not fit one batch fails) and that its chunks fit the SDK's own size accounting.
 */
@Timeout(60)
class EventHubsComponentTest {

    private static final AmqpRetryOptions FAST_RETRY = new AmqpRetryOptions().setMode(AmqpRetryMode.FIXED)
            .setMaxRetries(1).setDelay(Duration.ofMillis(200)).setMaxDelay(Duration.ofMillis(500))
            .setTryTimeout(Duration.ofSeconds(3));

    private AmqpEventHubPeer peer;
    private CamelContext camel;
    private ProducerTemplate template;
    private String endpoint;

    @BeforeEach
    void start() {
        peer = AmqpEventHubPeer.start(0);
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("fastRetry", FAST_RETRY);
        camel.start();
        template = camel.createProducerTemplate();
        EventHubsSettings settings = new EventHubsSettings(peer.connectionString("hub"), "", "", null);
        EventHubsSink.configureComponent(camel, settings, java.time.Duration.ofSeconds(30));
        endpoint = EventHubsSink.endpointUri(settings) + "?amqpRetryOptions=#fastRetry";
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
        peer.close();
    }

    private Exchange send(Chunk chunk) {
        return template.send(endpoint, EventHubsSender.asMessages(chunk));
    }

    private static List<Event> events(int count, String vm) throws Exception {
        ObjectNode[] cloudEvents = IntStream.range(0, count)
                .mapToObj(i -> EventHubsBatchTest.cloudEvent(i, "Scheduled", vm, vm)).toArray(ObjectNode[]::new);
        return EventHubsBatch.events(EventHubsBatchTest.spoolFile(cloudEvents));
    }

    @Test
    void aListOfMessagesIsOneBatchWhoseEventsKeepTheirOwnProperties() throws Exception {
        List<Event> events = events(3, "vm-1");

        Exchange sent = send(new Chunk("vm-1", events));

        assertThat(sent.getException()).isNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.messages().size() == 3);
        Batch batch = peer.batches().get(0);
        assertThat(batch.batched()).isTrue();
        assertThat(batch.messages()).extracting(ReceivedMessage::partitionKey).containsOnly("vm-1");
        for (int i = 0; i < 3; i++) {
            ReceivedMessage m = batch.messages().get(i);
            assertThat(m.body()).isEqualTo(events.get(i).body());
            assertThat(m.applicationProperties()).as("the message's headers, and only those")
                    .containsOnly(entry("transition", "Scheduled"), entry("eventType", "Reboot"),
                            entry("eventId", "EV-" + i), entry("vmName", "vm-1"));
        }
    }

    @Test
    void eventDataElementsAreRefusedSoTheyCannotCarryTheirProperties() {
        EventData data = new EventData("{}");
        data.getProperties().put("eventId", "EV-0");
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(List.of(data));

        Exchange sent = template.send(endpoint, exchange);

        assertThat(sent.getException()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Cannot convert message body");
        assertThat(peer.messages()).isEmpty();
    }

    @Test
    void aListBeyondOneBatchIsSplitByTheSdkIntoTwoAtMostAndBeyondTwoFailsWithoutSendingAnything() throws Exception {
        // The SDK collects an Iterable with maxNumberOfBatches=1, but checks the limit before adding the second
        // batch: up to two link-sized batches go (concurrently, flatMap), a third fails, non-transient.
        Exchange twoBatches = listOf(events(1500, "vm-1")); // ~1.4 MB, the peer's link takes 1 MiB
        assertThat(template.send(endpoint, twoBatches).getException()).isNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.messages().size() == 1500);
        assertThat(peer.batches()).hasSize(2);

        Exchange threeBatches = listOf(events(2500, "vm-1")); // ~2.4 MB
        Exception failure = template.send(endpoint, threeBatches).getException();

        assertThat(failure).isInstanceOf(AmqpException.class)
                .hasMessageContaining("does not fit into maximum number of batches");
        assertThat(((AmqpException) failure).getErrorCondition()).isEqualTo(AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED);
        assertThat(((AmqpException) failure).isTransient()).isFalse();
        assertThat(peer.messages()).hasSize(1500);
    }

    private Exchange listOf(List<Event> events) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader(EventHubsConstants.PARTITION_KEY, "vm-1");
        exchange.getMessage().setBody(events.stream().map(Event::body).toList());
        return exchange;
    }

    @Test
    void theChunksOfAThousandEventsEachFitABasicTierBatchAndArriveInOrder() throws Exception {
        List<Event> events = events(1000, "vm-1");
        List<Chunk> chunks = EventHubsBatch.chunks(events, EventHubsBatch.MAX_BATCH_BYTES);
        assertThat(chunks).hasSizeGreaterThan(1);

        try (EventHubProducerClient sdk = new EventHubClientBuilder().connectionString(peer.connectionString("hub"))
                .retryOptions(FAST_RETRY).buildProducerClient()) {
            for (Chunk chunk : chunks) {
                EventDataBatch basicTier = sdk.createBatch(new CreateBatchOptions().setPartitionKey(chunk.partitionKey())
                        .setMaximumSizeInBytes(256 * 1024));
                for (Event event : chunk.events()) {
                    EventData data = new EventData(event.body());
                    data.getProperties().putAll(event.properties());
                    assertThat(basicTier.tryAdd(data)).as("fits the SDK's own accounting of a 256 KB batch").isTrue();
                }
            }
        }
        for (Chunk chunk : chunks) {
            assertThat(send(chunk).getException()).isNull();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> peer.messages().size() == 1000);
        assertThat(peer.batches()).hasSize(chunks.size()).allMatch(Batch::batched);
        assertThat(peer.messages()).extracting(m -> m.applicationProperties().get("eventId"))
                .containsExactlyElementsOf(IntStream.range(0, 1000).mapToObj(i -> "EV-" + i).toList());
    }
}
