package io.github.scheduledeventsbridge.approval;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The JSON of approvals: the bodies the agent accepts, and the one it sends to IMDS. */
final class ApprovalBodies {

    static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ApprovalBodies() {
    }

    /** {"EventId": "…"} or {"StartRequests": [{"EventId": "…"}, …]}, nothing else; refused with 400 otherwise. */
    static List<String> eventIds(byte[] body) {
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ApprovalRefused(400, "body is not JSON");
        }
        if (root == null || !root.isObject() || root.size() != 1) {
            throw new ApprovalRefused(400, "body must be {\"EventId\": …} or {\"StartRequests\": [{\"EventId\": …}]}");
        }
        Set<String> ids = new LinkedHashSet<>();
        if (root.has("EventId")) {
            ids.add(eventId(root.get("EventId")));
        } else if (root.has("StartRequests") && root.get("StartRequests").isArray()
                && !root.get("StartRequests").isEmpty() && root.get("StartRequests").size() <= 100) {
            for (JsonNode request : root.get("StartRequests")) {
                if (!request.isObject() || request.size() != 1 || !request.has("EventId")) {
                    throw new ApprovalRefused(400, "each StartRequest must be {\"EventId\": …}");
                }
                ids.add(eventId(request.get("EventId")));
            }
        } else {
            throw new ApprovalRefused(400, "body must be {\"EventId\": …} or {\"StartRequests\": [{\"EventId\": …}]}");
        }
        return List.copyOf(ids);
    }

    private static String eventId(JsonNode node) {
        if (node == null || !node.isTextual() || node.asText().isBlank() || node.asText().length() > 100) {
            throw new ApprovalRefused(400, "EventId must be a non-empty string");
        }
        return node.asText().trim();
    }

    /** The exact body IMDS documents, with the ids as IMDS itself spelled them. */
    static String startRequests(List<ScheduledEvent> events) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode requests = root.putArray("StartRequests");
        events.forEach(e -> requests.addObject().put("EventId", e.eventId()));
        return json(root);
    }

    static String json(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
