package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.CommandResult;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/** The CloudEvent that reports how a prepare or recover command ended, to every sink. */
final class OutcomeEvent {

    static final String TYPE_PREFIX = "io.github.scheduledeventsbridge.action.";
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    /** The trigger's fields an outcome repeats, so that sinks filter and show it like a transition. */
    private static final List<String> COPIED = List.of("eventId", "eventType", "eventStatus", "resourceType",
            "resources", "notBefore", "description", "eventSource", "durationInSeconds", "documentIncarnation", "vm");

    private OutcomeEvent() {
    }

    /** {@code prepareOutcome}: for a recover, how the event's prepare ended (see {@link ActionRunner}); else null. */
    static ObjectNode create(ActionState.Entry entry, CommandResult result, String prepareOutcome, Clock clock) {
        ObjectNode input = entry.input();
        JsonNode in = input.path("data");
        boolean succeeded = result.succeeded();
        ObjectNode ce = MAPPER.createObjectNode();
        ce.put("specversion", "1.0");
        ce.put("id", UUID.randomUUID().toString());
        ce.put("source", input.path("source").asText());
        ce.put("type", TYPE_PREFIX + (succeeded ? "Succeeded" : "Failed"));
        ce.put("subject", in.path("eventId").asText());
        ce.put("time", DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS)));
        ce.put("datacontenttype", "application/json");
        ObjectNode data = ce.putObject("data");
        data.put("transition", succeeded ? "ActionSucceeded" : "ActionFailed");
        data.put("action", entry.action());
        data.put("outcome", result.outcome());
        if (result.exitCode() == null) {
            data.putNull("exitCode");
        } else {
            data.put("exitCode", result.exitCode());
        }
        if (result.failure() != null) {
            data.put("error", result.failure());
        }
        data.put("durationMs", result.took().toMillis());
        data.put("trigger", in.path("transition").asText());
        if (prepareOutcome != null) {
            data.put("prepareOutcome", prepareOutcome);
        }
        for (String field : COPIED) {
            if (in.has(field)) {
                data.set(field, in.get(field));
            }
        }
        return ce;
    }
}
