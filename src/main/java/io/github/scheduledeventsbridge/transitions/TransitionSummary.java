package io.github.scheduledeventsbridge.transitions;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a person needs from a transition, at a glance: a headline ("Reboot of vm-3 scheduled not before
 * 22:26 UTC") and a short list of facts. Shared by the email subject and body and the chat formats.
 */
public final class TransitionSummary {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("d MMM HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final int NAMES_SHOWN = 3;

    private TransitionSummary() {
    }

    public static String headline(JsonNode cloudEvent) {
        JsonNode data = cloudEvent.path("data");
        String type = text(data, "eventType", "Maintenance");
        String subject = type + " of " + target(data);
        String transition = text(data, "transition", "?");
        return switch (transition) {
            case "Scheduled" -> subject + " scheduled" + notBefore(data, cloudEvent, " not before ");
            case "Rescheduled" -> subject + " rescheduled" + notBefore(data, cloudEvent, " to not before ");
            case "Started" -> subject + " started";
            case "Completed" -> subject + " completed";
            case "Cancelled" -> subject + " cancelled";
            case "Approved" -> data.path("approval").path("dryRun").asBoolean(false)
                    ? "DRY RUN: " + subject + " would be approved (nothing was sent to IMDS)"
                    : subject + " approved";
            case "ActionSucceeded" -> subject + ": " + text(data, "action", "action") + " command succeeded";
            case "ActionFailed" -> subject + ": " + text(data, "action", "action") + " command "
                    + text(data, "outcome", "failed");
            default -> subject + " " + transition.toLowerCase(Locale.ROOT);
        };
    }

    /** Label → value, in reading order; absent values are left out. */
    public static Map<String, String> facts(JsonNode cloudEvent) {
        JsonNode data = cloudEvent.path("data");
        Map<String, String> facts = new LinkedHashMap<>();
        put(facts, "Transition", text(data, "transition", null));
        put(facts, "Event type", text(data, "eventType", null));
        put(facts, "Event ID", text(data, "eventId", null));
        put(facts, "Status", status(data));
        put(facts, "Not before", text(data, "notBefore", null));
        put(facts, "Resources", String.join(", ", names(data.path("resources"))));
        JsonNode duration = data.path("durationInSeconds");
        if (duration.isNumber()) {
            put(facts, "Duration", duration.asInt() < 0 ? "unknown" : duration.asInt() + " s");
        }
        put(facts, "Initiated by", text(data, "eventSource", null));
        put(facts, "Description", text(data, "description", null));
        JsonNode vm = data.path("vm");
        if (vm.isObject()) {
            put(facts, "Reported by", text(vm, "name", "?") + " (" + text(vm, "location", "?") + ")");
        }
        put(facts, "Seen at", text(cloudEvent, "time", null));
        return facts;
    }

    private static String target(JsonNode data) {
        List<String> resources = names(data.path("resources"));
        String own = text(data.path("vm"), "name", null);
        if (own != null && resources.stream().anyMatch(own::equalsIgnoreCase)) {
            return resources.size() == 1 ? own : own + " and " + (resources.size() - 1) + " more";
        }
        if (resources.isEmpty()) {
            return own == null ? "this VM" : own;
        }
        if (resources.size() <= NAMES_SHOWN) {
            return String.join(", ", resources);
        }
        return String.join(", ", resources.subList(0, NAMES_SHOWN)) + " and " + (resources.size() - NAMES_SHOWN) + " more";
    }

    /** The time alone when it is the same day as the message, otherwise with the date. */
    private static String notBefore(JsonNode data, JsonNode cloudEvent, String lead) {
        Instant notBefore = instant(text(data, "notBefore", null));
        if (notBefore == null) {
            return "";
        }
        Instant seen = instant(text(cloudEvent, "time", null));
        boolean sameDay = seen != null && seen.atZone(ZoneOffset.UTC).toLocalDate()
                .equals(notBefore.atZone(ZoneOffset.UTC).toLocalDate());
        return lead + (sameDay ? TIME : DATE_TIME).format(notBefore);
    }

    private static String status(JsonNode data) {
        String now = text(data, "eventStatus", null);
        String before = text(data, "previousStatus", null);
        if (now == null) {
            return before == null ? null : "no longer listed (was " + before + ")";
        }
        return before == null || before.equals(now) ? now : now + " (was " + before + ")";
    }

    private static Instant instant(String iso) {
        try {
            return iso == null ? null : Instant.parse(iso);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.asText()));
        return names;
    }

    private static void put(Map<String, String> facts, String label, String value) {
        if (value != null && !value.isBlank()) {
            facts.put(label, value);
        }
    }

    private static String text(JsonNode node, String field, String fallback) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() || value.asText().isBlank() ? fallback : value.asText();
    }
}
