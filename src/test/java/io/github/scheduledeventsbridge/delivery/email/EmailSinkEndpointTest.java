package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkFilter;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.apache.camel.CamelContext;
import org.apache.camel.component.mail.MailConfiguration;
import org.apache.camel.component.mail.MailEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.EndpointHelper;
import org.apache.camel.util.URISupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The camel-mail endpoint built from the settings, read back by camel-mail itself. */
class EmailSinkEndpointTest {

    private CamelContext camel;
    private final AttemptDeadlines deadlines = new AttemptDeadlines(Duration.ofSeconds(30));

    @BeforeEach
    void camel() {
        camel = new DefaultCamelContext();
        camel.start();
    }

    @AfterEach
    void stop() {
        camel.stop();
    }

    private static EmailSettings settings(String username, String password, boolean starttls) {
        return new EmailSettings("smtp.example.com", 587, username, password, "bridge+vm@example.com",
                List.of("ops@example.com", "on-call+azure@example.org"), starttls,
                new FilterSettings(Set.of("Scheduled", "Started"), Set.of("Reboot"), false));
    }

    private MailConfiguration configuration(String uri) {
        return camel.getEndpoint(uri, MailEndpoint.class).getConfiguration();
    }

    @Test
    void withCredentialsAndStarttls() {
        EmailSettings settings = settings("bridge@example.com", "s3cret", true);
        EmailSink.configureComponent(camel, settings, deadlines);
        String uri = EmailSink.endpointUri(settings);

        assertThat(uri).as("the login is the component's, never in the URI").isEqualTo("smtp://smtp.example.com:587?"
                + "from=RAW(bridge+vm@example.com)&to=RAW(ops@example.com,on-call+azure@example.org)"
                + "&contentType=RAW(text/html; charset=UTF-8)&connectionTimeout=10000"
                + "&mail.smtp.timeout=30000&mail.smtp.writetimeout=30000"
                + "&mail.smtp.starttls.enable=true&mail.smtp.starttls.required=true&mail.smtp.ssl.checkserveridentity=true");

        MailConfiguration c = configuration(uri);
        assertThat(c.getProtocol()).isEqualTo("smtp");
        assertThat(c.getHost()).isEqualTo("smtp.example.com");
        assertThat(c.getPort()).isEqualTo(587);
        assertThat(c.getUsername()).isEqualTo("bridge@example.com");
        assertThat(c.getPassword()).isEqualTo("s3cret");
        assertThat(c.getFrom()).isEqualTo("bridge+vm@example.com");
        assertThat(c.getTo()).isEqualTo("ops@example.com,on-call+azure@example.org");
        assertThat(c.getContentType()).isEqualTo("text/html; charset=UTF-8");
        assertThat(c.getConnectionTimeout()).isEqualTo(10_000);
        Properties javaMail = c.getAdditionalJavaMailProperties();
        assertThat(javaMail).containsEntry("mail.smtp.starttls.enable", "true")
                .containsEntry("mail.smtp.starttls.required", "true")
                .containsEntry("mail.smtp.ssl.checkserveridentity", "true")
                .containsEntry("mail.smtp.timeout", "30000")
                .containsEntry("mail.smtp.writetimeout", "30000");
    }

    @Test
    void withoutCredentialsNorStarttls() {
        String uri = EmailSink.endpointUri(settings("", "", false));

        assertThat(uri).isEqualTo("smtp://smtp.example.com:587?from=RAW(bridge+vm@example.com)"
                + "&to=RAW(ops@example.com,on-call+azure@example.org)&contentType=RAW(text/html; charset=UTF-8)"
                + "&connectionTimeout=10000&mail.smtp.timeout=30000&mail.smtp.writetimeout=30000");
        assertThat(uri).doesNotContain("username", "password", "starttls");

        MailConfiguration c = configuration(uri);
        assertThat(c.getUsername()).isNull();
        assertThat(c.getPassword()).isNull();
        assertThat(c.getAdditionalJavaMailProperties()).doesNotContainKeys("mail.smtp.starttls.enable",
                "mail.smtp.starttls.required");
    }

    @ParameterizedTest
    @ValueSource(strings = {"p@ss+w&rd=%20 x", "a)b", "a)&b=c", "x}&y", "a)b}c", "${sys.user.home}", "ünï €", "RAW(x)", "&&=="})
    void everyPasswordReachesCamelMailUnchanged(String password) {
        EmailSettings settings = settings("user", password, true);
        EmailSink.configureComponent(camel, settings, deadlines);
        String uri = EmailSink.endpointUri(settings);

        assertThat(configuration(uri).getPassword()).isEqualTo(password);
        assertThat(configuration(uri).getUsername()).isEqualTo("user");
    }

    @Test
    void neitherTheUriNorWhatCamelShowsOfTheEndpointHoldsTheLogin() {
        for (String password : List.of("s3cret-pw", "a)b-pw", "a)b}c-pw")) {
            EmailSettings settings = settings("user", password, true);
            EmailSink.configureComponent(camel, settings, deadlines);
            String uri = EmailSink.endpointUri(settings);
            assertThat(uri).doesNotContain(password, "password", "username");
            assertThat(camel.getEndpoint(uri).getEndpointUri()).doesNotContain(password);
            assertThat(URISupport.sanitizeUri(uri)).doesNotContain(password);
        }
    }

    @Test
    void aPasswordSentWithoutStarttlsIsWarnedAboutAtStart() {
        try (LogCapture log = LogCapture.install()) {
            EmailSink.configureComponent(camel, settings("user", "s3cret-pw", false), deadlines);
            EmailSink.configureComponent(camel, settings("user", "s3cret-pw", true), deadlines);
            EmailSink.configureComponent(camel, settings("", "", false), deadlines);
            assertThat(log.lines()).filteredOn(line -> line.startsWith("WARN")).singleElement().asString()
                    .contains("bridge.email.starttls=false", "clear text", "smtp.example.com:587").doesNotContain("s3cret-pw");
        }
    }

    @Test
    void whatTheServerSendsIsReadThroughTheBoundedSocketsWithoutFallback() {
        EmailSink.configureComponent(camel, settings("", "", true), deadlines);
        Properties javaMail = configuration(EmailSink.endpointUri(settings("", "", true))).getAdditionalJavaMailProperties();
        assertThat(javaMail.get("mail.smtp.socketFactory")).isInstanceOf(BoundedSmtpSockets.class);
        assertThat(javaMail.get("mail.smtp.socketFactory.fallback")).isEqualTo("false");
    }

    @Test
    void anIpv6HostGetsBrackets() {
        EmailSettings s = new EmailSettings("::1", 25, "", "", "a@example.com", List.of("b@example.com"), false,
                new FilterSettings(Set.of(), Set.of(), false));

        String uri = EmailSink.endpointUri(s);

        assertThat(uri).startsWith("smtp://[::1]:25?");
        assertThat(EndpointHelper.matchEndpoint(camel, uri, "smtp://*")).isTrue();
    }

    @Test
    void theSinkUsesTheEmailAttemptWithItsEndpointSenderAndRecipients() {
        EmailSettings s = settings("u", "pw-not-in-description", true);
        Sink sink = EmailSink.create(s, SinkFilter.all());

        assertThat(sink.id()).isEqualTo("email");
        assertThat(sink.queue()).isEqualTo("seda:sink-email");
        assertThat(sink.attempt()).isEqualTo("direct:email-attempt");
        assertThat(sink.batched()).isFalse();
        assertThat(sink.targetAs(EmailSink.Target.class)).isEqualTo(new EmailSink.Target(EmailSink.endpointUri(s),
                "bridge+vm@example.com", "ops@example.com,on-call+azure@example.org"));
        assertThat(sink.description()).contains("smtp.example.com:587", "STARTTLS").doesNotContain("pw-not-in-description");
        assertThat(sink.toString()).doesNotContain("pw-not-in-description");
    }
}
