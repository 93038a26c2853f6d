package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.transitions.TransitionSummary;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;

import java.io.IOException;
import java.util.Map;

/**
 * Route step: turns the spooled CloudEvent into what the target expects. CloudEvents go as they are;
 * Slack incoming webhooks get {@code text} + Block Kit blocks; Microsoft Teams (Workflows and incoming
 * webhooks) get a message with an Adaptive Card. The spool always keeps the CloudEvent.
 */
public final class WebhookFormats {

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    public void render(@ExchangeProperty(Sink.PROPERTY) Sink sink, Message message) throws IOException {
        WebhookFormat format = sink.targetAs(WebhookTarget.class).format();
        if (format == WebhookFormat.CLOUDEVENTS) {
            message.setHeader(Exchange.CONTENT_TYPE, "application/cloudevents+json");
            return;
        }
        JsonNode cloudEvent = MAPPER.readTree(message.getBody(byte[].class));
        JsonNode payload = format == WebhookFormat.SLACK ? slack(cloudEvent) : teams(cloudEvent);
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
        message.setBody(MAPPER.writeValueAsBytes(payload));
    }

    /** https://api.slack.com/messaging/webhooks: {@code text} is the notification fallback. */
    static ObjectNode slack(JsonNode cloudEvent) {
        String headline = TransitionSummary.headline(cloudEvent);
        ObjectNode message = MAPPER.createObjectNode();
        message.put("text", slackEscape(headline));
        ArrayNode blocks = message.putArray("blocks");
        ObjectNode header = blocks.addObject();
        header.put("type", "header");
        header.putObject("text").put("type", "plain_text").put("text", limit(headline, 150));
        ObjectNode section = blocks.addObject();
        section.put("type", "section");
        ArrayNode fields = section.putArray("fields");
        // Slack allows at most 10 fields per section.
        TransitionSummary.facts(cloudEvent).entrySet().stream().limit(10).forEach(fact -> fields.addObject()
                .put("type", "mrkdwn")
                .put("text", limit("*" + fact.getKey() + "*\n" + slackEscape(fact.getValue()), 2000)));
        ObjectNode context = blocks.addObject();
        context.put("type", "context");
        context.putArray("elements").addObject().put("type", "mrkdwn")
                .put("text", slackEscape("scheduled-events-bridge · id " + cloudEvent.path("id").asText()));
        return message;
    }

    /** Teams: a message whose single attachment is an Adaptive Card (schema 1.4). */
    static ObjectNode teams(JsonNode cloudEvent) {
        ObjectNode message = MAPPER.createObjectNode();
        message.put("type", "message");
        ObjectNode attachment = message.putArray("attachments").addObject();
        attachment.put("contentType", "application/vnd.microsoft.card.adaptive");
        attachment.putNull("contentUrl");
        ObjectNode card = attachment.putObject("content");
        card.put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json");
        card.put("type", "AdaptiveCard");
        card.put("version", "1.4");
        ArrayNode body = card.putArray("body");
        body.addObject().put("type", "TextBlock").put("size", "Medium").put("weight", "Bolder")
                .put("wrap", true).put("text", TransitionSummary.headline(cloudEvent));
        ObjectNode factSet = body.addObject().put("type", "FactSet");
        ArrayNode facts = factSet.putArray("facts");
        for (Map.Entry<String, String> fact : TransitionSummary.facts(cloudEvent).entrySet()) {
            facts.addObject().put("title", fact.getKey()).put("value", fact.getValue());
        }
        return message;
    }

    /** Slack's mrkdwn treats &, < and > as control characters. */
    private static String slackEscape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String limit(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
