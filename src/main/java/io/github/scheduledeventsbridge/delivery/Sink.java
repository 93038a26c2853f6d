package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Map;
import java.util.function.Predicate;

/**
 * One delivery destination with its own spool directory, its own in-memory lanes ({@code queue(lane)}) and a
 * route per lane from the one {@code sink-lane} template (routes/sink-lane.yaml), so that a slow or dead sink
 * only ever delays itself. A sink with several {@code lanes} delivers that many messages at a time, each lane
 * in order; every message of one event (its EventId) goes to the same lane, so each event's transitions
 * arrive in order, while two events' transitions may overtake each other. {@code attempt} is the endpoint of the route that makes one delivery attempt
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
        boolean batched,
        int lanes) {

    public Sink {
        if (lanes < 1 || batched && lanes != 1) {
            throw new IllegalArgumentException("sink " + id + ": " + lanes + " lanes");
        }
    }

    public Sink(String id, String description, String attempt, Map<String, Object> attemptProperties,
                Predicate<OutboundEvent> filter) {
        this(id, description, attempt, attemptProperties, filter, false);
    }

    public Sink(String id, String description, String attempt, Map<String, Object> attemptProperties,
                Predicate<OutboundEvent> filter, boolean batched) {
        this(id, description, attempt, attemptProperties, filter, batched, 1);
    }

    /** The first lane's queue (a sink's only one, unless it has several lanes). */
    public String queue() {
        return queue(0);
    }

    public String queue(int lane) {
        // One consumer per lane keeps each lane's messages in order; the queue only holds file names.
        return lane == 0 ? "seda:sink-" + id : "seda:sink-" + id + "-" + lane;
    }

    /** The queue of the lane that carries every message of this event (an EventId; null or blank: the first lane). */
    public String queueFor(String eventId) {
        return queue(laneOf(eventId));
    }

    int laneOf(String eventId) {
        if (lanes == 1 || eventId == null || eventId.isBlank()) {
            return 0;
        }
        // String.hashCode is defined by the language: the same lane in every run. IMDS writes EventIds in upper
        // case; an approval may name one in lower case and must still follow its event's earlier transitions.
        return Math.floorMod(eventId.toUpperCase(java.util.Locale.ROOT).hashCode(), lanes);
    }

    public String routeId() {
        return routeId(0);
    }

    public String routeId(int lane) {
        return lane == 0 ? "sink-" + id : "sink-" + id + "-" + lane;
    }

    /** The attempt properties hold secrets (URLs with tokens, SMTP passwords): never printed. */
    @Override
    public String toString() {
        return "Sink[" + id + ": " + description + "]";
    }
}
