package io.github.scheduledeventsbridge.delivery.email;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.transitions.TransitionSummary;
import io.github.scheduledeventsbridge.delivery.Sink;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.component.mail.MailConstants;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Route step: turns the spooled CloudEvent into a mail (subject, HTML body, plain-text alternative).
 *
 * <p>The layout lives in the Simple templates {@code templates/email.html} and {@code templates/email.txt};
 * Simple inserts values as they are, so this class hands them over twice, HTML-escaped for the HTML template
 * ({@code email*Html} properties) and plain for the text one ({@code email*Text}). Event text never reaches
 * the HTML unescaped, and it is never evaluated as Simple (a value that contains {@code ${...}} stays text).
 *
 * <p>Mail headers: {@code Subject}, {@code From}, {@code To}, and a {@code Message-ID} derived from the
 * CloudEvent id, the same on every retry (delivery is at-least-once; a receiver can drop a repeat by it).
 * The route removes every other header before this step.
 */
public final class EmailComposer {

    /** Set by the route from the template parameters. */

    /** Read by the templates. */
    public static final String HEADLINE_HTML = "emailHeadlineHtml";
    public static final String FACTS_HTML = "emailFactsHtml";
    public static final String ID_HTML = "emailIdHtml";
    public static final String HEADLINE_TEXT = "emailHeadlineText";
    public static final String FACTS_TEXT = "emailFactsText";
    public static final String ID_TEXT = "emailIdText";

    public static final String MESSAGE_ID_HEADER = "Message-ID";

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    private static final Pattern CONTROL = Pattern.compile("[\\p{Cntrl}\\u2028\\u2029\\u0085]+");
    private static final Pattern SPACES = Pattern.compile("\\s{2,}");
    private static final Pattern ID_SAFE = Pattern.compile("[A-Za-z0-9._-]+");
    private static final Pattern DOMAIN = Pattern.compile("[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+");

    /** What one transition looks like as a mail, before the templates lay it out. */
    public record Mail(String subject, String headline, Map<String, String> facts, String cloudEventId, String eventId) {
    }

    public void compose(@ExchangeProperty(Sink.PROPERTY) Sink sink, Exchange exchange) throws IOException {
        EmailSink.Target target = sink.targetAs(EmailSink.Target.class);
        Mail mail = mail(MAPPER.readTree(exchange.getMessage().getBody(byte[].class)));
        String from = target.from();
        Message message = exchange.getMessage();
        message.setHeader(MailConstants.MAIL_SUBJECT, mail.subject());
        message.setHeader(MailConstants.MAIL_FROM, from);
        message.setHeader(MailConstants.MAIL_TO, target.to());
        String messageId = messageId(mail.cloudEventId(), from);
        if (messageId != null) {
            message.setHeader(MESSAGE_ID_HEADER, messageId);
        }
        exchange.setProperty(HEADLINE_HTML, html(mail.headline()));
        exchange.setProperty(FACTS_HTML, factsHtml(mail.facts()));
        exchange.setProperty(ID_HTML, html(mail.cloudEventId()));
        exchange.setProperty(HEADLINE_TEXT, mail.headline());
        exchange.setProperty(FACTS_TEXT, factsText(mail.facts()));
        exchange.setProperty(ID_TEXT, mail.cloudEventId());
    }

    /**
     * The subject is the headline, then the EventId in brackets: the headline stays first (what a person reads
     * in a list or a phone notification), and the EventId makes every event's mails findable and tells apart
     * two events whose headlines are the same (two reboots of one VM on one day), which mail clients would
     * otherwise thread together as if they were one.
     */
    public static Mail mail(JsonNode cloudEvent) {
        String headline = oneLine(TransitionSummary.headline(cloudEvent));
        Map<String, String> facts = TransitionSummary.facts(cloudEvent);
        String eventId = facts.get("Event ID");
        String subject = eventId == null ? headline : headline + " [" + oneLine(eventId) + "]";
        return new Mail(subject, headline, facts, cloudEvent.path("id").asText(""), eventId);
    }

    /** One table row per fact; labels and values escaped. */
    static String factsHtml(Map<String, String> facts) {
        StringBuilder rows = new StringBuilder();
        for (Map.Entry<String, String> fact : facts.entrySet()) {
            rows.append("<tr><th style=\"text-align:left;vertical-align:top;padding:4px 16px 4px 0;white-space:nowrap\">")
                    .append(html(fact.getKey()))
                    .append("</th><td style=\"padding:4px 0;white-space:pre-wrap\">")
                    .append(html(fact.getValue()))
                    .append("</td></tr>\n");
        }
        return rows.toString();
    }

    /** "Label:  value", values aligned; the lines of a multi-line value are indented under the first. */
    static String factsText(Map<String, String> facts) {
        int width = facts.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
        String indent = " ".repeat(width);
        StringBuilder lines = new StringBuilder();
        for (Map.Entry<String, String> fact : facts.entrySet()) {
            String label = fact.getKey() + ":";
            lines.append(label).append(" ".repeat(width - label.length()))
                    .append(fact.getValue().strip().replaceAll("\\R", "\n" + indent))
                    .append('\n');
        }
        return lines.toString();
    }

    /** Escapes the five characters that are markup in HTML text and attribute values. */
    public static String html(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A header value on one line: no CR/LF (no header injection), no other control characters. */
    static String oneLine(String text) {
        return SPACES.matcher(CONTROL.matcher(text).replaceAll(" ")).replaceAll(" ").strip();
    }

    /**
     * {@code <cloudEventId@domain of From>}: stable across retries and restarts, like the CloudEvent id. Null
     * (JavaMail then makes one up) when the id is not a plain token.
     */
    static String messageId(String cloudEventId, String from) {
        if (cloudEventId == null || !ID_SAFE.matcher(cloudEventId).matches()) {
            return null;
        }
        String domain = from == null ? "" : from.substring(from.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
        return "<" + cloudEventId + "@" + (DOMAIN.matcher(domain).matches() ? domain : "scheduled-events-bridge.invalid") + ">";
    }
}
