package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Body;
import org.apache.camel.ExchangeProperty;

import java.io.IOException;
import java.util.Optional;

/**
 * Lane step before an attempt: a spool file must hold what the agent wrote there, a CloudEvent (or, for a
 * batched sink, a non-empty JSON array of them). Anything else (a truncated file, bytes from elsewhere) no
 * receiver could accept, so it is refused here and goes straight to the dead-letter directory instead of
 * being posted verbatim or retried for ever.
 */
public final class SpoolContent {

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    private static final String[] REQUIRED = {"specversion", "id", "source", "type"};

    public void check(@Body byte[] body, @ExchangeProperty(Sink.PROPERTY) Sink sink,
                      @ExchangeProperty(Spool.ENTRY_PROPERTY) SpoolEntry entry) {
        if (entry != null && entry.payload() != null) {
            // Serialised from a CloudEvent by this run a moment ago (a spool document just written), not read
            // back from disk: parsing it again was ~8 % of a lane's CPU in a 1000-event burst.
            return;
        }
        problem(body, sink.batched()).ifPresent(problem -> {
            throw new UnreadableSpoolFileException(problem);
        });
    }

    static Optional<String> problem(byte[] body, boolean batched) {
        JsonNode json;
        try {
            json = MAPPER.readTree(body);
        } catch (IOException e) {
            return Optional.of("not JSON");
        }
        if (json == null || json.isMissingNode()) {
            return Optional.of("empty");
        }
        if (!batched) {
            return cloudEventProblem(json);
        }
        if (!json.isArray() || json.isEmpty()) {
            return Optional.of("not a JSON array of CloudEvents");
        }
        for (JsonNode element : json) {
            Optional<String> problem = cloudEventProblem(element);
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> cloudEventProblem(JsonNode json) {
        if (!json.isObject()) {
            return Optional.of("not a CloudEvent (a JSON object)");
        }
        for (String attribute : REQUIRED) {
            if (!json.path(attribute).isTextual() || json.path(attribute).asText().isBlank()) {
                return Optional.of("not a CloudEvent (no " + attribute + ")");
            }
        }
        return Optional.empty();
    }

    /** A spool file that is not a message: never retried. */
    public static final class UnreadableSpoolFileException extends RuntimeException {
        public UnreadableSpoolFileException(String problem) {
            super("unreadable spool file: " + problem);
        }
    }
}
