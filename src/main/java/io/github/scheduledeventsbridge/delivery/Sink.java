package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Map;
import java.util.function.Predicate;

/**
 * One delivery destination with its own spool directory, its own in-memory lane ({@code queue}) and its own
 * route from the one {@code sink-lane} template (routes/sink-lane.yaml), so that a slow or dead sink only
 * ever delays itself. {@code attempt} is the endpoint of the route that makes one delivery attempt
 * ({@code direct:webhook-attempt}, …); {@code attemptProperties} are the exchange properties it reads
 * (format, target, endpoint), set at run time by {@link SinkRegistry#prepareAttempt}, so that URLs, tokens
 * and passwords never become part of a route definition. A {@code batched} sink receives the transitions of
 * one document together (a JSON array, one spool file); the others receive one CloudEvent per spool file.
 */
public record Sink(
        String id,
        String description,
        String attempt,
        Map<String, Object> attemptProperties,
        Predicate<OutboundEvent> filter,
        boolean batched) {

    public Sink(String id, String description, String attempt, Map<String, Object> attemptProperties,
                Predicate<OutboundEvent> filter) {
        this(id, description, attempt, attemptProperties, filter, false);
    }

    public String queue() {
        // One consumer per lane keeps each sink's messages in order; the queue only holds file names.
        return "seda:sink-" + id;
    }

    public String routeId() {
        return "sink-" + id;
    }

    /** The attempt properties hold secrets (URLs with tokens, SMTP passwords): never printed. */
    @Override
    public String toString() {
        return "Sink[" + id + ": " + description + "]";
    }
}
