package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The payload shapes Slack and Teams document; CloudEvents pass through untouched. */
class WebhookFormatsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final JsonNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot",
            "Mon, 11 Apr 2022 22:26:58 GMT", "vm-3", "vm-3");

    private Exchange render(String format, JsonNode body) throws Exception {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.getMessage().setBody(MAPPER.writeValueAsBytes(body));
        Sink sink = new Sink("webhook-1", "d", "direct:webhook-attempt",
                new WebhookTarget(java.net.URI.create("https://hooks.example.com/x"), WebhookFormat.valueOf(format)), e -> true);
        new WebhookFormats().render(sink, exchange.getMessage());
        return exchange;
    }

    @Test
    void cloudEventsAreSentAsSpooled() throws Exception {
        Exchange exchange = render("CLOUDEVENTS", cloudEvent);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(MAPPER.writeValueAsString(cloudEvent));
        assertThat(exchange.getMessage().getHeader(Exchange.CONTENT_TYPE)).isEqualTo("application/cloudevents+json");
    }

    @Test
    void slackGetsFallbackTextAndBlockKitBlocks() throws Exception {
        Exchange exchange = render("SLACK", cloudEvent);
        JsonNode slack = MAPPER.readTree(exchange.getMessage().getBody(byte[].class));
        assertThat(exchange.getMessage().getHeader(Exchange.CONTENT_TYPE)).isEqualTo("application/json");
        assertThat(slack.path("text").asText()).isEqualTo("Reboot of vm-3 scheduled not before 22:26 UTC");
        JsonNode blocks = slack.path("blocks");
        assertThat(blocks.get(0).path("type").asText()).isEqualTo("header");
        assertThat(blocks.get(0).path("text").path("type").asText()).isEqualTo("plain_text");
        assertThat(blocks.get(1).path("type").asText()).isEqualTo("section");
        JsonNode fields = blocks.get(1).path("fields");
        assertThat(fields.size()).isBetween(1, 10);
        fields.forEach(f -> assertThat(f.path("type").asText()).isEqualTo("mrkdwn"));
        assertThat(fields.toString()).contains("C7061BAC-AFDC-4513-B24B-AA5F13A16123");
        assertThat(blocks.get(2).path("type").asText()).isEqualTo("context");
        assertThat(slack.fieldNames()).toIterable().containsExactly("text", "blocks");
    }

    @Test
    void slackControlCharactersAreEscaped() throws Exception {
        var ce = cloudEvent.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) ce.path("data")).put("description", "a <b> & c");
        JsonNode slack = MAPPER.readTree(render("SLACK", ce).getMessage().getBody(byte[].class));
        assertThat(slack.path("blocks").get(1).toString()).contains("a &lt;b&gt; &amp; c").doesNotContain("<b>");
    }

    @Test
    void teamsGetsAMessageWithOneAdaptiveCard() throws Exception {
        JsonNode teams = MAPPER.readTree(render("TEAMS", cloudEvent).getMessage().getBody(byte[].class));
        assertThat(teams.path("type").asText()).isEqualTo("message");
        assertThat(teams.path("attachments")).hasSize(1);
        JsonNode attachment = teams.path("attachments").get(0);
        assertThat(attachment.path("contentType").asText()).isEqualTo("application/vnd.microsoft.card.adaptive");
        assertThat(attachment.has("contentUrl")).isTrue();
        JsonNode card = attachment.path("content");
        assertThat(card.path("type").asText()).isEqualTo("AdaptiveCard");
        assertThat(card.path("$schema").asText()).isEqualTo("http://adaptivecards.io/schemas/adaptive-card.json");
        assertThat(card.path("version").asText()).isEqualTo("1.4");
        assertThat(card.path("body").get(0).path("type").asText()).isEqualTo("TextBlock");
        assertThat(card.path("body").get(0).path("text").asText()).isEqualTo("Reboot of vm-3 scheduled not before 22:26 UTC");
        JsonNode facts = card.path("body").get(1);
        assertThat(facts.path("type").asText()).isEqualTo("FactSet");
        assertThat(facts.path("facts").get(0).has("title")).isTrue();
        assertThat(facts.path("facts").get(0).has("value")).isTrue();
        assertThat(facts.toString()).contains("C7061BAC-AFDC-4513-B24B-AA5F13A16123");
    }
}
