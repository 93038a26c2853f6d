package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Processor;

import java.io.IOException;

/**
 * What follows a lane's attempt, for success and failure alike, in one place: the spool's bookkeeping, the outage
 * log and the meters. The lane calls {@link #delivered}; routes/error-handling.yaml ({@code sink-delivery}) calls
 * {@link #process} before each retry, {@link #deadLettered} when a refused message's time is up and
 * {@link #keptForNextStart} when a stop ends the retries.
 */
public final class DeliveryOutcome implements Processor {

    private final Spool spool;
    private final DeadLetters deadLetters;
    private final OutageLog outageLog;
    private final DeliveryMetrics metrics;

    public DeliveryOutcome(Spool spool, DeadLetters deadLetters, OutageLog outageLog, DeliveryMetrics metrics) {
        this.spool = spool;
        this.deadLetters = deadLetters;
        this.outageLog = outageLog;
        this.metrics = metrics;
    }

    /** The receiver accepted the message: it leaves the spool, its lane works again, bridge.deliveries{delivered}. */
    public void delivered(@ExchangeProperty(Sink.PROPERTY) Sink sink,
                          @ExchangeProperty(Spool.ENTRY_PROPERTY) SpoolEntry entry) {
        spool.delivered(entry);
        outageLog.delivered(sink.id(), entry);
        metrics.delivered(sink.id());
    }

    /** onRedelivery (a Processor is what Camel calls there): one failed attempt, retried after its pause. */
    @Override
    public void process(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        attemptFailed(exchange.getProperty(Sink.PROPERTY, Sink.class),
                exchange.getProperty(Spool.ENTRY_PROPERTY, SpoolEntry.class), cause != null ? cause : exchange.getException());
    }

    /** The sink's outage starts or goes on (OutageLog), bridge.deliveries{retry}. */
    public void attemptFailed(Sink sink, SpoolEntry entry, Throwable cause) {
        if (sink == null || entry == null) {
            return;
        }
        outageLog.attemptFailed(sink.id(), entry.queue(), cause);
        metrics.failedAttempt(sink.id());
    }

    /** A refused message's time is up: moved to the sink's dead-letter directory, bridge.dead.letters. */
    public void deadLettered(@ExchangeProperty(Sink.PROPERTY) Sink sink,
                             @ExchangeProperty(Spool.ENTRY_PROPERTY) SpoolEntry entry,
                             @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Throwable failure) throws IOException {
        deadLetters.moveToDeadLetter(entry, failure);
        metrics.deadLettered(sink.id());
    }

    /** A stop ended the retries: the message waits on disk for the next start. */
    public void keptForNextStart(@ExchangeProperty(Spool.ENTRY_PROPERTY) SpoolEntry entry) {
        spool.keptForNextStart(entry);
    }
}
