package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Map;
import java.util.function.Predicate;

/**
 * One delivery destination with its own spool directory, its own in-memory lane ({@code queue}) and
 * its own route built from {@code routeTemplate}, so that a slow or dead sink only ever delays itself.
 * A {@code batched} sink receives the transitions of one document together (a JSON array, one spool
 * file); the others receive one CloudEvent per spool file.
 */
public record Sink(
        String id,
        String description,
        String routeTemplate,
        Map<String, Object> templateParameters,
        Predicate<OutboundEvent> filter,
        boolean batched) {

    public Sink(String id, String description, String routeTemplate, Map<String, Object> templateParameters,
                Predicate<OutboundEvent> filter) {
        this(id, description, routeTemplate, templateParameters, filter, false);
    }

    public String queue() {
        // One consumer per lane keeps each sink's messages in order; the queue only holds file names.
        return "seda:sink-" + id;
    }

    public String routeId() {
        return "sink-" + id;
    }
}
