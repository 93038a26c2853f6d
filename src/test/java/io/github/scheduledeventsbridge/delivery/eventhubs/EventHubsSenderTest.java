package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.ReceivedMessage;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatchTest.cloudEvent;
import static io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatchTest.spoolFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/** One attempt's sending, against the AMQP peer: chunks in order, only confirmed ones counted, a retry resumes. */
@Timeout(60)
class EventHubsSenderTest {

    private AmqpEventHubPeer peer;
    private CamelContext camel;
    private Sink sink;
    private EventHubsSender sender;

    @BeforeEach
    void start() {
        peer = AmqpEventHubPeer.start(0);
        camel = new DefaultCamelContext();
        camel.start();
        EventHubsSettings settings = new EventHubsSettings(peer.connectionString("hub"), "", "", null);
        // One try per send, as in the agent; the SDK resends a rejected transfer until this attempt timeout.
        EventHubsSink.configureComponent(camel, settings, Duration.ofSeconds(4));
        sink = new Sink("eventhubs", "Event Hubs", "direct:eventhubs-attempt",
                new EventHubsSink.Target(EventHubsSink.endpointUri(settings)), e -> true, true);
        sender = new EventHubsSender(camel);
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
        peer.close();
    }

    /** Two chunks: the events of VM "a", then the one of VM "b" (a new partition key starts a new chunk). */
    private static byte[] twoChunks() throws Exception {
        return spoolFile(cloudEvent(1, "Scheduled", "a"), cloudEvent(2, "Started", "a"), cloudEvent(3, "Started", "b"));
    }

    @Test
    @DisplayName("a spool file's chunks arrive in order, one batch each, with only the events' properties and the partition key")
    void chunksArriveInOrderAsOneBatchEach() throws Exception {
        EventHubsSender.Confirmed confirmed = sender.confirmedSoFar(null);

        sender.send(twoChunks(), sink, confirmed);

        assertThat(confirmed.chunks()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.messages().size() == 3);
        assertThat(peer.batches()).as("one transfer per chunk").extracting(b -> b.messages().get(0).partitionKey())
                .containsExactly("a", "b");
        assertThat(peer.batches().get(0).batched()).isTrue();
        assertThat(peer.messages()).extracting(m -> m.applicationProperties().get("eventId"))
                .containsExactly("EV-1", "EV-2", "EV-3");
        ReceivedMessage first = peer.messages().get(0);
        assertThat(first.applicationProperties()).containsOnly(entry("transition", "Scheduled"),
                entry("eventType", "Reboot"), entry("eventId", "EV-1"), entry("vmName", "a"));
        assertThat(first.bodyAsString()).contains("\"id\":\"id-1\"", "\"specversion\":\"1.0\"");
    }

    @Test
    @DisplayName("a chunk the hub rejects fails the attempt with the hub's error; the retry sends only what is not confirmed")
    void aRetryResumesAfterTheConfirmedChunks() throws Exception {
        byte[] spooled = twoChunks();
        EventHubsSender.Confirmed confirmed = sender.confirmedSoFar(null);
        peer.refusePartitionKey("b");

        assertThatThrownBy(() -> sender.send(spooled, sink, confirmed)).hasMessageContaining("Retries exhausted");
        assertThat(confirmed.chunks()).as("the first chunk, which the hub confirmed").isEqualTo(1);
        assertThat(peer.messages()).extracting(m -> m.applicationProperties().get("eventId")).containsExactly("EV-1", "EV-2");

        peer.refusePartitionKey(null);
        EventHubsSender.Confirmed carried = sender.confirmedSoFar(confirmed); // the lane's redelivery: same property
        sender.send(spooled, sink, carried);

        assertThat(carried).isSameAs(confirmed);
        assertThat(confirmed.chunks()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.messages().size() >= 3);
        assertThat(peer.messages()).as("each event once, in order")
                .extracting(m -> m.applicationProperties().get("eventId")).containsExactly("EV-1", "EV-2", "EV-3");
    }
}
