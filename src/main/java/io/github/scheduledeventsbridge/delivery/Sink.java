package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.function.Predicate;

/**
 * One delivery destination with its own spool directory, its own in-memory lanes ({@code queue(lane)}) and a
 * route per lane from the one {@code sink-lane} template (routes/sink-lane.yaml), so that a slow or dead sink
 * only ever delays itself. A sink with several {@code lanes} delivers that many messages at a time, each lane
 * in order; every message of one event (its EventId) goes to the same lane, so each event's transitions
 * arrive in order, while two events' transitions may overtake each other. {@code attempt} is the endpoint of the route that makes one delivery attempt
 * ({@code direct:webhook-attempt}, …); {@code target} is what that attempt sends to ({@link WebhookTarget}, the
 * email and Event Hubs targets). The lane puts the sink itself on the exchange once ({@value #PROPERTY}), and the
 * attempt's beans take it as a parameter, so that URLs, tokens and passwords never become part of a route
 * definition. A {@code batched} sink receives the transitions of one document together (a JSON array, one spool
 * file); the others receive one CloudEvent per spool file. {@code label} names the sink for people (logs, readiness,
 * metrics) without secrets: {@code webhook hooks.example.com}, {@code SMTP mail.example.com:587}, {@code Event Hubs
 * ns/hub}; {@code description} says more, for the start-up log.
 */
public record Sink(
        String id,
        String label,
        String description,
        String attempt,
        Target target,
        Predicate<OutboundEvent> filter,
        boolean batched,
        int lanes) {

    /** The exchange property under which a lane carries its sink to every step of an attempt. */
    public static final String PROPERTY = "sink";

    /** What one attempt sends to; a target holds secrets (URLs with tokens) and never prints them. */
    public interface Target {
        /** For a sink whose attempt needs nothing but the message (the Windows Event Log). */
        Target NONE = new Target() {
            @Override
            public String toString() {
                return "none";
            }
        };
    }

    public Sink {
        if (lanes < 1 || batched && lanes != 1) {
            throw new IllegalArgumentException("sink " + id + ": " + lanes + " lanes");
        }
    }

    public Sink(String id, String description, String attempt, Target target, Predicate<OutboundEvent> filter) {
        this(id, description, attempt, target, filter, false);
    }

    public Sink(String id, String description, String attempt, Target target, Predicate<OutboundEvent> filter,
                boolean batched) {
        this(id, description, attempt, target, filter, batched, 1);
    }

    /** A sink without a label of its own (these three constructors) is named by its id. */
    public Sink(String id, String description, String attempt, Target target, Predicate<OutboundEvent> filter,
                boolean batched, int lanes) {
        this(id, id, description, attempt, target, filter, batched, lanes);
    }

    /** The target of this sink's kind: an attempt route only ever runs for sinks of its own kind. */
    public <T extends Target> T targetAs(Class<T> kind) {
        if (!kind.isInstance(target)) {
            throw new IllegalStateException("sink " + id + " has no " + kind.getSimpleName());
        }
        return kind.cast(target);
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

    /** The target holds secrets (URLs with tokens, SMTP passwords): never printed. */
    @Override
    public String toString() {
        return "Sink[" + id + ": " + description + "]";
    }
}
