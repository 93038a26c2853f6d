package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.apache.camel.CamelContext;
import org.apache.camel.component.mail.MailComponent;
import org.apache.camel.component.mail.MailConfiguration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The email sink: one mail per transition, through camel-mail (SMTP). Its lane comes from the {@code sink-lane}
 * template, its attempts from routes/email-sink.yaml; this class only builds what they read.
 */
public final class EmailSink {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EmailSink.class);

    /**
     * What one attempt sends to: the camel-mail endpoint (without the login, which is the component's), the sender
     * and the recipients (comma-separated). Carried by the lane with its sink, never part of a route.
     */
    public record Target(String endpoint, String from, String to) implements Sink.Target {
    }

    /** Time to open the TCP connection (camel-mail {@code connectionTimeout}, javamail {@code connectiontimeout}). */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Time to wait for any one server answer, and to write any one block. Generous, because a server may
     * scan the message before answering the end of DATA, but bounded: a hung server costs a retry, never
     * the lane.
     */
    static final Duration IO_TIMEOUT = Duration.ofSeconds(30);

    private EmailSink() {
    }

    public static Sink create(EmailSettings settings, Predicate<OutboundEvent> filter) {
        return new Sink("email", settings.label(), settings + ", " + filter, "direct:email-attempt",
                new Target(endpointUri(settings), settings.from(), String.join(",", settings.to())), filter, false, 1);
    }

    /**
     * The SMTP login goes to the {@code smtp} component, whose configuration every smtp endpoint copies, and never
     * into the endpoint URI: route dumps, the endpoint registry and Hawtio would show it there.
     */
    public static void configureComponent(CamelContext context, EmailSettings s, AttemptDeadlines deadlines) {
        if (!s.enabled()) {
            return;
        }
        MailConfiguration configuration = context.getComponent("smtp", MailComponent.class).getConfiguration();
        if (!s.username().isEmpty()) {
            configuration.setUsername(s.username());
        }
        if (!s.password().isEmpty()) {
            configuration.setPassword(s.password());
            if (!s.starttls()) {
                LOG.warn("bridge.email.password is set and bridge.email.starttls=false: the SMTP login (AUTH) and every "
                        + "mail cross the network in clear text to {}:{}; set bridge.email.starttls=true", s.host(), s.port());
            }
        }
        // What the server sends is bounded in bytes per reply and in time (BoundedSmtpSockets); no fallback to an
        // unbounded socket when it fails.
        configuration.getAdditionalJavaMailProperties().put("mail.smtp.socketFactory", new BoundedSmtpSockets(deadlines));
        configuration.getAdditionalJavaMailProperties().put("mail.smtp.socketFactory.fallback", "false");
    }

    /**
     * The camel-mail endpoint, without the login ({@link #configureComponent}):
     * {@code smtp://host:port?from=RAW(f)&to=RAW(a,b)&contentType=RAW(text/html; charset=UTF-8)
     * &connectionTimeout=10000&mail.smtp.timeout=30000&mail.smtp.writetimeout=30000
     * [&mail.smtp.starttls.enable=true&mail.smtp.starttls.required=true&mail.smtp.ssl.checkserveridentity=true]}.
     * Every configured value goes in RAW() so that no character of it is reinterpreted ({@code +}, {@code &},
     * {@code %}, {@code =}). camel-mail hands every
     * {@code mail.*} parameter to JavaMail as is. STARTTLS is required, not merely enabled: a server (or a
     * man in the middle) that does not offer it gets nothing, credentials included, and the message waits in
     * the spool.
     */
    static String endpointUri(EmailSettings s) {
        List<String> parameters = new ArrayList<>();
        parameters.add("from=" + raw(s.from()));
        parameters.add("to=" + raw(String.join(",", s.to())));
        parameters.add("contentType=" + raw("text/html; charset=UTF-8"));
        parameters.add("connectionTimeout=" + CONNECT_TIMEOUT.toMillis());
        parameters.add("mail.smtp.timeout=" + IO_TIMEOUT.toMillis());
        parameters.add("mail.smtp.writetimeout=" + IO_TIMEOUT.toMillis());
        if (s.starttls()) {
            parameters.add("mail.smtp.starttls.enable=true");
            parameters.add("mail.smtp.starttls.required=true");
            parameters.add("mail.smtp.ssl.checkserveridentity=true");
        }
        return "smtp://" + host(s.host()) + ":" + s.port() + "?" + String.join("&", parameters);
    }

    /** An IPv6 literal needs its brackets in a URI. */
    private static String host(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /**
     * Camel takes a RAW value as is. Camel finds the end of RAW(...) at the first ")" in some places (URI
     * normalisation, masking of secrets in logs), so a value containing ")" goes in the other form Camel
     * knows, RAW{...}.
     */
    static String raw(String value) {
        return value.contains(")") && !value.contains("}") ? "RAW{" + value + "}" : "RAW(" + value + ")";
    }
}
