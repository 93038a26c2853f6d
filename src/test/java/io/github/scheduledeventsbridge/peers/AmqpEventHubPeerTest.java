package io.github.scheduledeventsbridge.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubProducerAsyncClient;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.CreateBatchOptions;
import com.azure.messaging.eventhubs.models.SendOptions;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.Batch;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.ReceivedMessage;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.azure.eventhubs.EventHubsConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class AmqpEventHubPeerTest {

    /**
     * Keeps failures within the test's 60 s: the SDK default is 3 retries with a 60 s try-timeout and exponential
     * back-off. Each try still has 20 s: on a machine busy with other test JVMs a send to the peer can take more than a
     * few seconds, and a timed-out try lands in the SDK's retry (which then fails on its own jitter bounds).
     */
    private static final AmqpRetryOptions FAST_RETRY = new AmqpRetryOptions()
            .setMode(AmqpRetryMode.FIXED)
            .setMaxRetries(1)
            .setDelay(Duration.ofMillis(200))
            .setMaxDelay(Duration.ofMillis(500))
            .setTryTimeout(Duration.ofSeconds(20));

    private AmqpEventHubPeer peer;

    @BeforeEach
    void startPeer() {
        peer = AmqpEventHubPeer.start(0);
    }

    @AfterEach
    void stopPeer() {
        peer.close();
    }

    private EventHubClientBuilder client() {
        return new EventHubClientBuilder().connectionString(peer.connectionString("hub")).retryOptions(FAST_RETRY);
    }

    private EventHubProducerClient producer() {
        return client().buildProducerClient();
    }

    @Test
    void sdkSendsOneEventWithPropertiesAndPartitionKey() {
        try (EventHubProducerClient producer = producer()) {
            EventData event = new EventData("{\"vm\":\"vm-1\"}");
            event.getProperties().put("eventType", "Reboot");
            event.getProperties().put("attempt", 3);
            producer.send(List.of(event), new SendOptions().setPartitionKey("vm-1"));

            // the $management node answers too
            assertThat(producer.getEventHubProperties().getName()).isEqualTo("hub");
            assertThat(producer.getPartitionIds()).containsExactly("0");
            assertThat(producer.getPartitionProperties("0").isEmpty()).isTrue();
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(peer.batches()).hasSize(1));
        Batch batch = peer.batches().get(0);
        assertThat(batch.batched()).as("a single event goes as a plain message").isFalse();
        ReceivedMessage message = batch.messages().get(0);
        assertThat(message.bodyAsString()).isEqualTo("{\"vm\":\"vm-1\"}");
        assertThat(message.applicationProperties()).containsEntry("eventType", "Reboot").containsEntry("attempt", 3);
        assertThat(message.partitionKey()).isEqualTo("vm-1");
        assertThat(message.address()).isEqualTo("hub");
        assertThat(message.partitionId()).isNull();
    }

    @Test
    void sdkBatchOfThreeArrivesAsOneTransfer() {
        try (EventHubProducerClient producer = producer()) {
            EventDataBatch batch = producer.createBatch(new CreateBatchOptions().setPartitionKey("vm-1"));
            for (String body : List.of("e1", "e2", "e3")) {
                assertThat(batch.tryAdd(new EventData(body))).isTrue();
            }
            producer.send(batch);
            producer.send(List.of(new EventData("to-partition")), new SendOptions().setPartitionId("0"));
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(peer.batches()).hasSize(2));
        Batch batch = peer.batches().get(0);
        assertThat(batch.batched()).isTrue();
        assertThat(batch.messages()).extracting(ReceivedMessage::bodyAsString).containsExactly("e1", "e2", "e3");
        assertThat(batch.messages()).extracting(ReceivedMessage::partitionKey).containsOnly("vm-1");
        assertThat(batch.messages()).extracting(ReceivedMessage::address).containsOnly("hub");

        ReceivedMessage toPartition = peer.batches().get(1).messages().get(0);
        assertThat(toPartition.address()).isEqualTo("hub/Partitions/0");
        assertThat(toPartition.partitionId()).isZero();
        assertThat(toPartition.partitionKey()).isNull();
        assertThat(peer.messages()).hasSize(4);
    }

    @Test
    void camelRouteSendsWithPartitionKeyHeaderOptionAndListBodies() throws Exception {
        String endpoint = "azure-eventhubs:?connectionString=RAW(" + peer.connectionString("hub") + ")"
                + "&amqpRetryOptions=#fastRetry";
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("fastRetry", FAST_RETRY);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:in").to(endpoint);
                    from("direct:keyed").to(endpoint + "&partitionKey=vm-9");
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();

            template.sendBodyAndHeader("direct:in", "single", EventHubsConstants.PARTITION_KEY, "vm-7");
            template.sendBodyAndHeader("direct:in", List.of("a", "b", "c"), EventHubsConstants.PARTITION_KEY, "vm-8");
            template.sendBody("direct:keyed", List.of("x".getBytes(StandardCharsets.UTF_8),
                    "y".getBytes(StandardCharsets.UTF_8)));
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(peer.batches()).hasSize(3));
        List<Batch> batches = peer.batches();

        ReceivedMessage single = batches.get(0).messages().get(0);
        assertThat(batches.get(0).batched()).isFalse();
        assertThat(single.bodyAsString()).isEqualTo("single");
        assertThat(single.partitionKey()).isEqualTo("vm-7");
        // camel copies every exchange header into the event's application properties
        assertThat(single.applicationProperties()).containsEntry(EventHubsConstants.PARTITION_KEY, "vm-7");

        assertThat(batches.get(1).batched()).as("List<String> body = one AMQP batch transfer").isTrue();
        assertThat(batches.get(1).messages()).extracting(ReceivedMessage::bodyAsString).containsExactly("a", "b", "c");
        assertThat(batches.get(1).messages()).extracting(ReceivedMessage::partitionKey).containsOnly("vm-8");

        assertThat(batches.get(2).batched()).as("List<byte[]> body = one AMQP batch transfer").isTrue();
        assertThat(batches.get(2).messages()).extracting(ReceivedMessage::bodyAsString).containsExactly("x", "y");
        assertThat(batches.get(2).messages()).extracting(ReceivedMessage::partitionKey).containsOnly("vm-9");
    }

    @Test
    void peerCanGoDownAndComeBackOnTheSamePort() {
        int port = peer.port();
        EventHubProducerAsyncClient survivor = client().buildAsyncProducerClient();
        try {
            survivor.send(List.of(new EventData("before"))).block(Duration.ofSeconds(10));

            long stopStarted = System.nanoTime();
            peer.stop(); // force-closes the survivor's live connection
            assertThat(Duration.ofNanos(System.nanoTime() - stopStarted)).as("stop() drained all sockets")
                    .isLessThan(Duration.ofSeconds(20));
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);

            // the SDK keeps reconnecting while the hub is down: the send neither succeeds nor (quickly) fails
            CompletableFuture<Void> whileDown = survivor.send(List.of(new EventData("while-down"))).toFuture();
            assertThat(whileDown).failsWithin(Duration.ofSeconds(2)).withThrowableOfType(TimeoutException.class);
            assertThat(peer.messages()).extracting(ReceivedMessage::bodyAsString).containsExactly("before");

            peer.restart();
            assertThat(peer.port()).isEqualTo(port);
            try (EventHubProducerClient fresh = producer()) {
                fresh.send(List.of(new EventData("after")));
            }
            // ...and the pending send goes through on one of the SDK's reconnect attempts
            await().atMost(Duration.ofSeconds(15)).until(whileDown::isDone);
            assertThat(whileDown).isCompleted().isNotCompletedExceptionally();
        } finally {
            survivor.close();
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(peer.messages())
                .extracting(ReceivedMessage::bodyAsString).containsExactlyInAnyOrder("before", "after", "while-down"));
        assertThat(peer.messages().get(0).bodyAsString()).isEqualTo("before");
    }

    @Test
    void abruptOrGarbageClientsDoNotKillThePeer() throws Exception {
        try (Socket garbage = new Socket("127.0.0.1", peer.port())) {
            garbage.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            garbage.getOutputStream().flush();
        }
        try (Socket halfHeader = new Socket("127.0.0.1", peer.port())) {
            halfHeader.getOutputStream().write(new byte[] {'A', 'M', 'Q', 'P', 3, 1}); // SASL header, cut short
            halfHeader.getOutputStream().flush();
            halfHeader.setSoLinger(true, 0); // close with RST
        }
        EventHubProducerAsyncClient killed = client().buildAsyncProducerClient();
        killed.send(List.of(new EventData("from-killed"))).block(Duration.ofSeconds(10));
        killed.close(); // closes its links and connection without waiting for the peer's answers

        try (EventHubProducerClient producer = producer()) {
            producer.send(List.of(new EventData("still-alive")));
        }
        assertThat(peer.messages()).extracting(ReceivedMessage::bodyAsString)
                .containsExactly("from-killed", "still-alive");

        long stopStarted = System.nanoTime(); // the half-header connection must not make stop() hang
        peer.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - stopStarted)).isLessThan(Duration.ofSeconds(20));
    }
}
