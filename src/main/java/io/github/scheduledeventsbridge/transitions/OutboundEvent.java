package io.github.scheduledeventsbridge.transitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * A transition rendered as its CloudEvent, with the sequence number that orders it on disk and on
 * every sink. Both are fixed when the transition is first recorded and never change afterwards,
 * which is what keeps the id stable across retries and restarts.
 */
public record OutboundEvent(long seq, ObjectNode cloudEvent) {

    public String id() {
        return cloudEvent.get("id").asText();
    }

    public String transition() {
        return data().path("transition").asText();
    }

    public String eventType() {
        return data().path("eventType").asText(null);
    }

    public String eventId() {
        return data().path("eventId").asText();
    }

    public List<String> resources() {
        List<String> names = new ArrayList<>();
        data().path("resources").forEach(n -> names.add(n.asText()));
        return names;
    }

    /** An auto-approval in dry-run mode: what would have been approved, not an approval. */
    public boolean isDryRun() {
        return data().path("approval").path("dryRun").asBoolean(false);
    }

    public JsonNode data() {
        return cloudEvent.path("data");
    }

    /** One line for the log, enough to follow an event without reading JSON. */
    public String summary() {
        JsonNode data = data();
        if (isDryRun()) {
            return String.format("DRY RUN: would approve %s %s (rule %s; nothing was sent to IMDS) id=%s",
                    data.path("eventType").asText("?"), eventId(), data.path("approval").path("rule").asText("?"), id());
        }
        // An action's outcome names the action: "ActionFailed prepare Reboot <id> ...".
        String action = data.path("action").asText("");
        return String.format("%s %s%s %s (incarnation %s, not before %s, resources %s) id=%s",
                transition(), action.isEmpty() ? "" : action + " ", data.path("eventType").asText("?"), eventId(),
                data.path("documentIncarnation").asText(), data.path("notBefore").asText("-"),
                resources(), id());
    }
}
