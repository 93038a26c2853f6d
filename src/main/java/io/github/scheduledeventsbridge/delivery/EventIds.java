package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Which event a message is about: every message of one event goes through the same lane of its sink. */
final class EventIds {

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private EventIds() {
    }

    /** The EventId a CloudEvent is about ({@code data.eventId}, else its {@code subject}), or null. */
    static String of(JsonNode cloudEvent) {
        if (cloudEvent == null) {
            return null;
        }
        String eventId = cloudEvent.path("data").path("eventId").asText("");
        return eventId.isBlank() ? cloudEvent.path("subject").asText(null) : eventId;
    }

    /** The EventId a spooled CloudEvent is about, or null (unreadable: its lane will dead-letter it). */
    static String in(byte[] message) {
        try {
            return of(MAPPER.readTree(message));
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    static String in(Path file) {
        try {
            return in(Files.readAllBytes(file));
        } catch (IOException unreadable) {
            return null;
        }
    }
}
