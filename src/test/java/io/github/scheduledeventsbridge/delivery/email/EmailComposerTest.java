package io.github.scheduledeventsbridge.delivery.email;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The mail of a transition: subject, escaping, the Simple templates as the route runs them. */
class EmailComposerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String EVENT_ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String HOSTILE = "Reboot <script>alert(\"x\")</script> & 'more' ${sys.user.home} {{bridge.webhook.secret}}";

    private CamelContext camel;

    @BeforeEach
    void camel() {
        camel = new DefaultCamelContext();
        camel.start();
    }

    @AfterEach
    void stop() {
        camel.stop();
    }

    /** A CloudEvent exactly as the agent writes it to the spool, seen at 2022-04-11T10:00Z by vm-3. */
    static byte[] cloudEvent(TransitionType type, String eventType, String description, String... resources) throws Exception {
        VmIdentity identity = new VmIdentity(Clock.systemUTC());
        identity.set(new VmIdentity.Vm("vm-3", "11111111-2222-3333-4444-555555555555",
                "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-3", "westeurope"));
        Clock clock = Clock.fixed(Instant.parse("2022-04-11T10:00:00Z"), ZoneOffset.UTC);
        boolean gone = type == TransitionType.Completed || type == TransitionType.Cancelled;
        boolean started = type == TransitionType.Started || type == TransitionType.Completed;
        ScheduledEvent event = new ScheduledEvent(EVENT_ID, eventType, "VirtualMachine", List.of(resources),
                started ? "Started" : "Scheduled", started ? "" : "Mon, 11 Apr 2022 22:26:58 GMT", description, "User", 5);
        String previous = switch (type) {
            case Scheduled -> null;
            case Started, Rescheduled, Cancelled -> "Scheduled";
            default -> "Started";
        };
        DetectedTransition transition = new DetectedTransition(type, event, previous, gone ? null : event.eventStatus(), 7);
        ObjectNode json = new CloudEventFactory(clock, identity).create(transition);
        return MAPPER.writeValueAsBytes(json);
    }

    private Exchange composed(byte[] cloudEvent) throws Exception {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(cloudEvent);
        io.github.scheduledeventsbridge.delivery.Sink sink = new io.github.scheduledeventsbridge.delivery.Sink("email", "d", "direct:email-attempt",
                new EmailSink.Target("smtp://localhost", "bridge@example.com", "ops@example.com,oncall@example.org"), e -> true);
        new EmailComposer().compose(sink, exchange);
        return exchange;
    }

    private String render(Exchange exchange, String template) {
        ProducerTemplate producer = camel.createProducerTemplate();
        Exchange out = producer.send("language:simple:resource:classpath:templates/" + template, exchange);
        assertThat(out.getException()).isNull();
        return out.getMessage().getBody(String.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            Scheduled   | Reboot    | Reboot of vm-3 scheduled not before 22:26 UTC [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            Rescheduled | Reboot    | Reboot of vm-3 rescheduled to not before 22:26 UTC [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            Started     | Redeploy  | Redeploy of vm-3 started [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            Completed   | Reboot    | Reboot of vm-3 completed [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            Cancelled   | Terminate | Terminate of vm-3 cancelled [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            Approved    | Preempt   | Preempt of vm-3 approved [C7061BAC-AFDC-4513-B24B-AA5F13A16123]
            """)
    void theSubjectIsTheHeadlineThenTheEventId(TransitionType type, String eventType, String subject) throws Exception {
        Exchange exchange = composed(cloudEvent(type, eventType, "d", "vm-3"));

        assertThat(exchange.getMessage().getHeader("Subject", String.class)).isEqualTo(subject);
    }

    @Test
    void headersAreSubjectFromToAndAStableMessageIdOnly() throws Exception {
        byte[] event = cloudEvent(TransitionType.Scheduled, "Reboot", "d", "vm-3");
        Exchange exchange = composed(event);

        String cloudEventId = MAPPER.readTree(event).path("id").asText();
        assertThat(exchange.getMessage().getHeaders()).containsOnlyKeys("Subject", "From", "To", "Message-ID");
        assertThat(exchange.getMessage().getHeader("From")).isEqualTo("bridge@example.com");
        assertThat(exchange.getMessage().getHeader("To")).isEqualTo("ops@example.com,oncall@example.org");
        assertThat(exchange.getMessage().getHeader("Message-ID")).isEqualTo("<" + cloudEventId + "@example.com>");
        assertThat(composed(event).getMessage().getHeader("Message-ID"))
                .as("the same on every attempt").isEqualTo(exchange.getMessage().getHeader("Message-ID"));
    }

    @Test
    void theHtmlBodyEscapesEventTextAndTheTextBodyKeepsItAsIs() throws Exception {
        Exchange exchange = composed(cloudEvent(TransitionType.Scheduled, "Reboot", HOSTILE, "vm-3", "<img src=x onerror=alert(1)>"));

        String html = render(exchange, "email.html");
        assertThat(html)
                .contains("Reboot &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;")
                .contains("&lt;img src=x onerror=alert(1)&gt;")
                .doesNotContain("<script>", "<img", "& 'more'")
                .contains(EVENT_ID)
                .contains("<title>Reboot of vm-3 and 1 more scheduled not before 22:26 UTC</title>")
                .as("values are not evaluated as Simple or as property placeholders")
                .contains("${sys.user.home}", "{{bridge.webhook.secret}}")
                .doesNotContain(System.getProperty("user.home") + " ");
        assertThat(html).startsWith("<!DOCTYPE html>").contains("</table>").endsWith("</html>");

        String text = render(exchange, "email.txt");
        assertThat(text)
                .startsWith("Reboot of vm-3 and 1 more scheduled not before 22:26 UTC\n\n")
                .contains("Description:  " + HOSTILE + "\n")
                .contains("Event ID:     " + EVENT_ID + "\n")
                .contains("Resources:    vm-3, <img src=x onerror=alert(1)>\n")
                .doesNotContain("&lt;", "&amp;");
    }

    @Test
    void everyFactIsARowAndEveryBodyNamesTheEventIdAndTheCloudEventId() throws Exception {
        byte[] event = cloudEvent(TransitionType.Started, "Redeploy", "Virtual machine is being redeployed.", "vm-3");
        Exchange exchange = composed(event);
        String cloudEventId = MAPPER.readTree(event).path("id").asText();

        String html = render(exchange, "email.html");
        assertThat(html)
                .contains("<h1 style=\"margin:0 0 12px 0;font-size:18px;font-weight:600\">Redeploy of vm-3 started</h1>")
                .contains(">Event ID</th><td style=\"padding:4px 0;white-space:pre-wrap\">" + EVENT_ID + "</td></tr>")
                .contains(">Description</th><td style=\"padding:4px 0;white-space:pre-wrap\">Virtual machine is being redeployed.</td>")
                .contains(">Status</th><td style=\"padding:4px 0;white-space:pre-wrap\">Started (was Scheduled)</td>")
                .contains("Message id " + cloudEventId);
        assertThat(html.split("<tr>", -1)).hasSize(EmailComposer.mail(MAPPER.readTree(event)).facts().size() + 1);

        String text = render(exchange, "email.txt");
        assertThat(text).contains("Transition:   Started\n", "Event type:   Redeploy\n", "Event ID:     " + EVENT_ID + "\n",
                "Description:  Virtual machine is being redeployed.\n", "Message id " + cloudEventId);
    }

    @Test
    void aMultiLineDescriptionIsIndentedInTextAndKeptInHtml() {
        String text = EmailComposer.factsText(new java.util.LinkedHashMap<>(java.util.Map.of("Description", "line one\r\nline two")));
        assertThat(text).isEqualTo("Description: line one\n             line two\n");
        assertThat(EmailComposer.factsHtml(java.util.Map.of("A&B", "x\ny")))
                .contains(">A&amp;B</th>").contains(">x\ny</td>");
    }

    @Test
    void theSubjectStaysOneLineWhateverTheEventSays() throws Exception {
        Exchange exchange = composed(cloudEvent(TransitionType.Scheduled, "Reboot\r\nBcc: victim@example.net", "d",
                "vm-1\r\nX-Injected: 1", "vm-2\u2028"));

        String subject = exchange.getMessage().getHeader("Subject", String.class);
        assertThat(subject).doesNotContain("\r", "\n", "\u2028")
                .isEqualTo("Reboot Bcc: victim@example.net of vm-1 X-Injected: 1, vm-2 scheduled not before 22:26 UTC ["
                        + EVENT_ID + "]");
    }

    @Test
    void htmlEscapesTheFiveMarkupCharacters() {
        assertThat(EmailComposer.html("<a href=\"x\" title='y'>&amp;</a>"))
                .isEqualTo("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
        assertThat(EmailComposer.html("plain é … 日本")).isEqualTo("plain é … 日本");
    }

    @Test
    void theMessageIdNeedsAPlainIdAndFallsBackToAnInvalidDomain() {
        assertThat(EmailComposer.messageId("2f45f477-5d03-365f-a9a7-03e52d61ca3f", "Bridge@Mail.Example.com"))
                .isEqualTo("<2f45f477-5d03-365f-a9a7-03e52d61ca3f@mail.example.com>");
        assertThat(EmailComposer.messageId("abc", "weird@[127.0.0.1]")).isEqualTo("<abc@scheduled-events-bridge.invalid>");
        assertThat(EmailComposer.messageId("a>b", "x@example.com")).isNull();
        assertThat(EmailComposer.messageId("", "x@example.com")).isNull();
    }
}
