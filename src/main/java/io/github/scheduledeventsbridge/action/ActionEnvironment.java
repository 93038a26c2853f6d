package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The SEB_* variables of a command, from its transition's CloudEvent data (values made safe by {@link CommandSpec}). */
final class ActionEnvironment {

    /** Marks every process of one action's command (inherited by what it starts): see {@link ActionState#runTag}. */
    static final String RUN_TAG = "SEB_RUN_TAG";

    private ActionEnvironment() {
    }

    /** {@code prepareOutcome}: for a recover, how the event's prepare ended (null for a prepare). */
    static Map<String, String> of(JsonNode data, String prepareOutcome, String runTag) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SEB_TRANSITION", data.path("transition").asText(""));
        env.put("SEB_EVENT_ID", data.path("eventId").asText(""));
        env.put("SEB_EVENT_TYPE", data.path("eventType").asText(""));
        env.put("SEB_EVENT_STATUS", data.path("eventStatus").asText(""));
        env.put("SEB_NOT_BEFORE", data.path("notBefore").asText(""));
        List<String> resources = new ArrayList<>();
        data.path("resources").forEach(r -> resources.add(r.asText()));
        env.put("SEB_RESOURCES", String.join(",", resources));
        env.put("SEB_DURATION_SECONDS", data.path("durationInSeconds").asText(""));
        env.put("SEB_EVENT_SOURCE", data.path("eventSource").asText(""));
        env.put("SEB_DESCRIPTION", data.path("description").asText(""));
        env.put("SEB_VM_NAME", data.path("vm").path("name").asText(""));
        if (prepareOutcome != null) {
            env.put("SEB_PREPARE_OUTCOME", prepareOutcome);
        }
        env.put(RUN_TAG, runTag);
        return env;
    }
}
