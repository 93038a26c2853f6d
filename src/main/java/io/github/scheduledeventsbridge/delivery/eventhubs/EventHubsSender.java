package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Chunk;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch.Event;
import org.apache.camel.Body;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.azure.eventhubs.EventHubsConstants;
import org.apache.camel.support.DefaultMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * One Event Hubs attempt (routes/eventhubs-sink.yaml): the chunks of a spool file ({@link EventHubsBatch}) sent
 * one after the other to the sink's endpoint, each as one batch, each only once the hub confirmed the one before.
 *
 * <p>{@link Confirmed} counts the chunks the hub confirmed. It is an exchange property ({@value #CONFIRMED}), so
 * it outlives the lane's redeliveries (which restore the message, not the properties): a retry resumes with the
 * first unconfirmed chunk instead of repeating confirmed ones. A failed chunk fails the attempt with the hub's
 * own exception, for the lane to retry or dead-letter.
 */
public final class EventHubsSender {

    /** The exchange property with the spool file's {@link Confirmed} chunks. */
    public static final String CONFIRMED = "eventHubsConfirmed";

    private final CamelContext context;
    private ProducerTemplate producer;

    public EventHubsSender(CamelContext context) {
        this.context = context;
    }

    /** How many of one spool file's chunks the hub has confirmed, across attempts. */
    public static final class Confirmed {
        private int chunks;

        public int chunks() {
            return chunks;
        }

        @Override
        public String toString() {
            return chunks + " chunk(s) confirmed";
        }
    }

    /** First step of an attempt: the count from an earlier attempt of this message, or none yet. */
    public Confirmed confirmedSoFar(@ExchangeProperty(CONFIRMED) Confirmed confirmed) {
        return confirmed != null ? confirmed : new Confirmed();
    }

    /** The chunks not confirmed yet, in order; returns once the hub confirmed the last. */
    public void send(@Body byte[] spooled, @ExchangeProperty(Sink.PROPERTY) Sink sink,
                     @ExchangeProperty(CONFIRMED) Confirmed confirmed) throws Exception {
        List<Chunk> chunks = EventHubsBatch.chunks(EventHubsBatch.events(spooled), EventHubsBatch.MAX_BATCH_BYTES);
        String endpoint = sink.targetAs(EventHubsSink.Target.class).endpoint();
        while (confirmed.chunks < chunks.size()) {
            Exchange sent = producer().send(endpoint, asMessages(chunks.get(confirmed.chunks)));
            if (sent.getException() != null) {
                throw sent.getException();
            }
            confirmed.chunks++;
        }
    }

    /**
     * One chunk as the exchange the component sends: the body a {@code List<Message>}, one message per event, its
     * headers being the event's application properties; the exchange's only header the partition key, so nothing
     * internal reaches the hub.
     */
    static Processor asMessages(Chunk chunk) {
        return exchange -> {
            List<Message> messages = new ArrayList<>(chunk.events().size());
            for (Event event : chunk.events()) {
                DefaultMessage message = new DefaultMessage(exchange); // the component needs message.getExchange()
                message.setBody(event.body());
                message.getHeaders().putAll(event.properties());
                messages.add(message);
            }
            if (chunk.partitionKey() != null) {
                exchange.getMessage().setHeader(EventHubsConstants.PARTITION_KEY, chunk.partitionKey());
            }
            exchange.getMessage().setBody(messages);
        };
    }

    /** Made on first use: a run without Event Hubs never needs one. One lane calls this (a batched sink has one). */
    private synchronized ProducerTemplate producer() {
        if (producer == null) {
            producer = context.createProducerTemplate();
        }
        return producer;
    }
}
