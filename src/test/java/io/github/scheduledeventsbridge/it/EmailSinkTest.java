package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.email.StarttlsFront;
import io.github.scheduledeventsbridge.delivery.email.TcpTap;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import jakarta.mail.Address;
import jakarta.mail.BodyPart;
import jakarta.mail.Header;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The email sink against a real SMTP server (GreenMail, in this JVM, on a real socket), with the agent
 * started in-process against a scripted IMDS.
 */
class EmailSinkTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String FROM = "bridge@vm.example.com";
    private static final String[] TO = {"ops@example.com", "oncall@example.org"};
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";
    private static final String LATER = "Tue, 12 Apr 2022 03:00:00 GMT";
    private static final String DESCRIPTION = "Virtual machine <b>vm-under-test</b> is going to be restarted as "
            + "requested by \"ops\" & team, ${sys.user.home} (café, 5 min)";
    private static final String DESCRIPTION_HTML = "Virtual machine &lt;b&gt;vm-under-test&lt;/b&gt; is going to be "
            + "restarted as requested by &quot;ops&quot; &amp; team, ${sys.user.home} (café, 5 min)";
    private static final String VM = "vm-under-test";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().greenMail(FROM, TO)
            .with("bridge.delivery.initial-backoff", "100")
            .with("bridge.delivery.max-backoff", "400");

    private static String id(char c) {
        return String.valueOf(c).repeat(8) + "-0000-4000-8000-00000000000" + c;
    }

    /** An IMDS event, written with Jackson so that the description may hold any character. */
    private static String event(String id, String status, String type, String notBefore, String description) {
        ObjectNode e = MAPPER.createObjectNode();
        e.put("EventId", id);
        e.put("EventStatus", status);
        e.put("EventType", type);
        e.put("ResourceType", "VirtualMachine");
        e.putArray("Resources").add(VM);
        e.put("NotBefore", notBefore);
        e.put("Description", description);
        e.put("EventSource", "User");
        e.put("DurationInSeconds", 5);
        return e.toString();
    }

    private static String scheduled(String id, String type, String notBefore) {
        return event(id, "Scheduled", type, notBefore, DESCRIPTION);
    }

    private static String started(String id, String type) {
        return event(id, "Started", type, "", DESCRIPTION);
    }

    /** An SMTP server on a port the agent already sends to (the fixture's own is {@code fixture.greenMail()}). */
    private GreenMail smtp(int port) {
        GreenMail greenMail = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        greenMail.start();
        fixture.closeAfter((AutoCloseable) greenMail::stop);
        return greenMail;
    }

    private InProcessAgent.Builder agent(int smtpPort) {
        return fixture.builder().with("bridge.email.port", Integer.toString(smtpPort));
    }

    /** One received mail, taken apart as a reader's mail client would. */
    private record Mail(String subject, List<String> from, List<String> to, String contentType, String text,
                        String html, String messageId, List<String> headerNames) {

        static Mail of(MimeMessage m) throws Exception {
            MimeMultipart alternative = (MimeMultipart) m.getContent();
            String text = null;
            String html = null;
            for (int i = 0; i < alternative.getCount(); i++) {
                BodyPart part = alternative.getBodyPart(i);
                if (part.isMimeType("text/plain")) {
                    text = ((String) part.getContent()).replace("\r\n", "\n");
                } else if (part.isMimeType("text/html")) {
                    html = ((String) part.getContent()).replace("\r\n", "\n");
                }
            }
            List<String> headerNames = Collections.list(m.getAllHeaders()).stream().map(Header::getName).toList();
            return new Mail(m.getSubject(), addresses(m.getFrom()), addresses(m.getRecipients(Message.RecipientType.TO)),
                    m.getContentType(), text, html, m.getMessageID(), headerNames);
        }

        private static List<String> addresses(Address[] addresses) {
            return addresses == null ? List.of()
                    : Arrays.stream(addresses).map(a -> ((InternetAddress) a).getAddress()).toList();
        }

        boolean names(String eventId) {
            return subject.endsWith(" [" + eventId + "]") && text.contains(eventId) && html.contains(eventId);
        }
    }

    /** Mails in arrival order; GreenMail keeps one copy per recipient, counted by {@link #copies}. */
    private static List<Mail> received(GreenMail greenMail) throws Exception {
        List<Mail> mails = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (MimeMessage m : greenMail.getReceivedMessages()) {
            Mail mail = Mail.of(m);
            if (seen.add(mail.messageId())) {
                mails.add(mail);
            }
        }
        return mails;
    }

    private static int copies(GreenMail greenMail) {
        return greenMail.getReceivedMessages().length;
    }

    private long spoolFiles() throws Exception {
        Path dir = fixture.state().resolve("spool").resolve("email");
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
        }
    }

    /** The SMTP verbs a client sent (first word of each line). */
    private static List<String> commands(String session) {
        return session.lines().map(line -> line.split(" ", 2)[0].toUpperCase(java.util.Locale.ROOT)).distinct().toList();
    }

    /** The agent has fully processed the document it is served now (polls run one after the other). */
    private void awaitPolledTwice() {
        int served = fixture.imds().documentsServed();
        await().atMost(WAIT).until(() -> fixture.imds().documentsServed() >= served + 3);
    }

    @Test
    void theDefaultFilterMailsARebootWhenScheduledAndStartedButNotWhenCompleted() throws Exception {
        String reboot = id('a');
        String sentinel = id('b');
        GreenMail greenMail = fixture.greenMail();
        fixture.imds().serve(Docs.document(2, scheduled(reboot, "Reboot", NOT_BEFORE)));
        InProcessAgent agent = agent(greenMail.getSmtp().getPort()).start();

        await().atMost(WAIT).until(() -> copies(greenMail) == TO.length);
        fixture.imds().serve(Docs.document(3, started(reboot, "Reboot")));
        await().atMost(WAIT).until(() -> copies(greenMail) == 2 * TO.length);
        fixture.imds().serve(Docs.document(4));
        awaitPolledTwice();
        // The lane keeps order: once the next event's mail is in, a mail for Completed would be too.
        fixture.imds().serve(Docs.document(5, scheduled(sentinel, "Reboot", NOT_BEFORE)));
        await().atMost(WAIT).until(() -> copies(greenMail) >= 3 * TO.length);

        List<Mail> mails = received(greenMail);
        assertThat(mails).extracting(Mail::subject).containsExactly(
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + reboot + "]",
                "Reboot of vm-under-test started [" + reboot + "]",
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + sentinel + "]");
        assertThat(copies(greenMail)).as("each mail once, to each of the two recipients").isEqualTo(3 * TO.length);

        for (Mail mail : mails) {
            assertThat(mail.from()).containsExactly(FROM);
            assertThat(mail.to()).containsExactly(TO);
            assertThat(mail.contentType()).startsWith("multipart/alternative");
            assertThat(mail.text()).as("plain-text part").contains(DESCRIPTION).doesNotContain("&lt;", "&amp;");
            assertThat(mail.html()).as("HTML part").contains(DESCRIPTION_HTML).doesNotContain("<b>vm-under-test", "\"ops\"");
            assertThat(mail.headerNames()).as("no internal header reaches the mail")
                    .allMatch(name -> List.of("Return-Path", "Received", "Date", "From", "To", "Message-ID", "Subject",
                            "MIME-Version", "Content-Type").contains(name));
        }
        Mail first = mails.get(0);
        assertThat(first.names(reboot)).isTrue();
        assertThat(first.text()).startsWith("Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC\n")
                .contains("Event ID:     " + reboot + "\n", "Transition:   Scheduled\n", "Not before:   2022-04-11T22:26:58Z\n");
        assertThat(first.html()).contains("<h1", ">Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC</h1>",
                ">Event ID</th>", ">" + reboot + "</td>");
        assertThat(mails.get(1).names(reboot)).isTrue();
        assertThat(mails.get(1).text()).contains("Transition:   Started\n", "Status:       Started (was Scheduled)\n");
        assertThat(mails).extracting(Mail::messageId).allMatch(messageId -> messageId.endsWith("@vm.example.com>"));

        Spool spool = agent.bean("spool", Spool.class);
        await().atMost(WAIT).until(() -> spool.depth("email") == 0);
        assertThat(spoolFiles()).isZero();
    }

    @Test
    void withAllTransitionsEveryTransitionIsMailedNamingItsEventId() throws Exception {
        String reboot = id('c');
        String redeploy = id('d');
        String freeze = id('e');
        GreenMail greenMail = fixture.greenMail();
        String freezeEvent = scheduled(freeze, "Freeze", NOT_BEFORE);
        fixture.imds().serve(Docs.document(2, scheduled(reboot, "Reboot", NOT_BEFORE), freezeEvent, scheduled(redeploy, "Redeploy", NOT_BEFORE)));
        agent(greenMail.getSmtp().getPort()).with("bridge.email.filter.transitions", "all").start();
        int perMail = TO.length;

        await().atMost(WAIT).until(() -> copies(greenMail) == 2 * perMail);
        fixture.imds().serve(Docs.document(3, scheduled(reboot, "Reboot", LATER), freezeEvent));
        await().atMost(WAIT).until(() -> copies(greenMail) == 4 * perMail);
        fixture.imds().serve(Docs.document(4, started(reboot, "Reboot"), freezeEvent));
        await().atMost(WAIT).until(() -> copies(greenMail) == 5 * perMail);
        fixture.imds().serve(Docs.document(5, freezeEvent));
        await().atMost(WAIT).until(() -> copies(greenMail) >= 6 * perMail);

        List<Mail> mails = received(greenMail);
        assertThat(mails).extracting(Mail::subject).containsExactly(
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + reboot + "]",
                "Redeploy of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + redeploy + "]",
                "Reboot of vm-under-test rescheduled to not before 12 Apr 03:00 UTC [" + reboot + "]",
                "Redeploy of vm-under-test cancelled [" + redeploy + "]",
                "Reboot of vm-under-test started [" + reboot + "]",
                "Reboot of vm-under-test completed [" + reboot + "]");
        assertThat(copies(greenMail)).isEqualTo(6 * perMail);
        List<String> eventIds = List.of(reboot, redeploy, reboot, redeploy, reboot, reboot);
        List<String> transitions = List.of("Scheduled", "Scheduled", "Rescheduled", "Cancelled", "Started", "Completed");
        for (int i = 0; i < mails.size(); i++) {
            Mail mail = mails.get(i);
            assertThat(mail.names(eventIds.get(i))).as(mail.subject()).isTrue();
            assertThat(mail.text()).contains("Event ID:     " + eventIds.get(i) + "\n", "Transition:   " + transitions.get(i) + "\n");
            assertThat(mail.html()).contains(">" + eventIds.get(i) + "</td>", ">" + transitions.get(i) + "</td>");
        }
        assertThat(mails).as("the Freeze is not an event type the default email filter keeps")
                .noneMatch(m -> m.subject().contains(freeze) || m.text().contains(freeze));
    }

    /**
     * A server that greets one byte a second never trips the per-read timeout: the attempt's deadline
     * (bridge.delivery.attempt-timeout) ends it, and the next attempt, greeted properly, delivers.
     */
    @Test
    void aGreetingTricklingOneByteASecondIsOneAttemptEndedAtItsDeadline() throws Exception {
        io.github.scheduledeventsbridge.testing.RefusingSmtpServer server =
                new io.github.scheduledeventsbridge.testing.RefusingSmtpServer(mail -> false);
        fixture.closeAfter(server);
        server.hostileGreetings(1, 1_000_000, Duration.ofSeconds(1));
        String reboot = id('t');
        fixture.imds().serve(Docs.document(2, scheduled(reboot, "Reboot", NOT_BEFORE)));
        java.time.Instant started = java.time.Instant.now();
        InProcessAgent agent = agent(server.port()).with("bridge.delivery.attempt-timeout", "3000").start();

        await().atMost(WAIT).until(() -> server.accepted().size() == 1);
        assertThat(server.connections()).isEqualTo(2);
        assertThat(Duration.between(started, java.time.Instant.now())).isLessThan(WAIT);
        assertThat(server.accepted().get(0)).contains(reboot);
        await().atMost(WAIT).until(() -> agent.bean("spool", Spool.class).depth("email") == 0);
    }

    @Test
    void whileTheSmtpServerIsDownMailsWaitInTheSpoolAndArriveOnceInOrderWhenItIsUp() throws Exception {
        int port = FreePorts.unused();
        List<String> ids = IntStream.range(0, 3).mapToObj(i -> id((char) ('f' + i))).toList();
        fixture.imds().serve(Docs.document(2, ids.stream().map(i -> scheduled(i, "Reboot", NOT_BEFORE)).toArray(String[]::new)));
        InProcessAgent agent = agent(port).start();
        Spool spool = agent.bean("spool", Spool.class);

        await().atMost(WAIT).until(() -> spool.depth("email") == 3);
        fixture.imds().serve(Docs.document(3, ids.stream().map(i -> started(i, "Reboot")).toArray(String[]::new)));
        await().atMost(WAIT).until(() -> spool.depth("email") == 6);
        assertThat(spoolFiles()).isEqualTo(6);

        GreenMail greenMail = smtp(port);
        await().atMost(WAIT).until(() -> spool.depth("email") == 0);

        List<Mail> mails = received(greenMail);
        assertThat(copies(greenMail)).as("each mail once, to each of the two recipients").isEqualTo(6 * TO.length);
        assertThat(mails).extracting(Mail::subject).containsExactly(
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + ids.get(0) + "]",
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + ids.get(1) + "]",
                "Reboot of vm-under-test scheduled not before 11 Apr 22:26 UTC [" + ids.get(2) + "]",
                "Reboot of vm-under-test started [" + ids.get(0) + "]",
                "Reboot of vm-under-test started [" + ids.get(1) + "]",
                "Reboot of vm-under-test started [" + ids.get(2) + "]");
        assertThat(mails).allMatch(m -> m.html().contains(DESCRIPTION_HTML) && m.text().contains(DESCRIPTION));
        assertThat(spoolFiles()).isZero();
    }

    @Test
    void theAgentAuthenticatesAndAWrongPasswordKeepsTheMailInTheSpoolAcrossARestart() throws Exception {
        String password = "p@ss w+rd&=%)(}{x";
        LogCapture log = LogCapture.install();
        fixture.closeAfter(log);
        GreenMail greenMail = fixture.greenMail();
        greenMail.setUser(FROM, "bridge", password);
        TcpTap tap = new TcpTap(greenMail.getSmtp().getPort());
        fixture.closeAfter(tap);
        String reboot = id('k');
        fixture.imds().serve(Docs.document(2, scheduled(reboot, "Reboot", NOT_BEFORE)));

        try (InProcessAgent wrong = agent(tap.port()).with("bridge.email.username", "bridge")
                .with("bridge.email.password", "not-" + password).start()) {
            await().atMost(WAIT).until(() -> tap.connections() >= 3);
            assertThat(commands(tap.clientSent())).contains("EHLO", "AUTH").doesNotContain("MAIL", "RCPT", "DATA");
            assertThat(copies(greenMail)).isZero();
            assertThat(wrong.bean("spool", Spool.class).depth("email")).isEqualTo(1);
        }
        assertThat(spoolFiles()).isEqualTo(1);

        InProcessAgent right = agent(tap.port()).with("bridge.email.username", "bridge")
                .with("bridge.email.password", password).start();
        await().atMost(WAIT).until(() -> copies(greenMail) == TO.length);
        await().atMost(WAIT).until(() -> right.bean("spool", Spool.class).depth("email") == 0);

        assertThat(received(greenMail)).singleElement().satisfies(mail -> assertThat(mail.names(reboot)).isTrue());
        assertThat(spoolFiles()).isZero();
        assertThat(log.text()).as("the log shows the failures, never the password")
                .contains("AuthenticationFailedException").doesNotContain("w+rd", "not-p@ss");
    }

    @Test
    void withStarttlsTheCredentialsAndTheMailTravelOnlyInsideTls() throws Exception {
        GreenMail greenMail = fixture.greenMail();
        greenMail.setUser(FROM, "bridge", "secret");
        StarttlsFront front = new StarttlsFront(greenMail.getSmtp().getPort(), Files.createDirectories(fixture.state().resolve("tls")));
        fixture.closeAfter(front);
        String reboot = id('n');
        fixture.imds().serve(Docs.document(2, scheduled(reboot, "Reboot", NOT_BEFORE)));
        // The front's certificate is self-signed: trust it for 127.0.0.1 only, as an operator would trust a
        // private CA. JavaMail reads mail.* system properties; camel-mail starts from a copy of them.
        System.setProperty("mail.smtp.ssl.trust", "127.0.0.1");
        fixture.closeAfter((AutoCloseable) () -> System.clearProperty("mail.smtp.ssl.trust"));

        agent(front.port()).with("bridge.email.starttls", "true")
                .with("bridge.email.username", "bridge").with("bridge.email.password", "secret").start();

        await().atMost(WAIT).until(() -> copies(greenMail) == TO.length);
        assertThat(front.upgraded()).isPositive();
        assertThat(commands(front.sentInClear())).as("in clear").containsOnly("EHLO", "STARTTLS");
        assertThat(front.sentInClear()).doesNotContain("secret");
        assertThat(received(greenMail)).singleElement().satisfies(mail -> {
            assertThat(mail.names(reboot)).isTrue();
            assertThat(mail.html()).contains(DESCRIPTION_HTML);
        });
    }

    @Test
    void withStarttlsRequiredAServerWithoutStarttlsGetsNothingNotEvenTheCredentials() throws Exception {
        // GreenMail 2.1.13 offers no STARTTLS on plain SMTP (its EHLO lists AUTH only): exactly the server, or
        // the man in the middle stripping STARTTLS, that must get nothing. No fallback to a clear-text session.
        GreenMail greenMail = fixture.greenMail();
        greenMail.setUser(FROM, "bridge", "secret");
        TcpTap tap = new TcpTap(greenMail.getSmtp().getPort());
        fixture.closeAfter(tap);
        fixture.imds().serve(Docs.document(2, scheduled(id('m'), "Reboot", NOT_BEFORE)));

        InProcessAgent agent = agent(tap.port()).with("bridge.email.starttls", "true")
                .with("bridge.email.username", "bridge").with("bridge.email.password", "secret").start();

        await().atMost(WAIT).until(() -> tap.connections() >= 3);
        assertThat(commands(tap.clientSent())).contains("EHLO").doesNotContain("AUTH", "MAIL", "RCPT", "DATA");
        assertThat(tap.clientSent()).doesNotContain("secret");
        assertThat(copies(greenMail)).isZero();
        assertThat(agent.bean("spool", Spool.class).depth("email")).isEqualTo(1);
        assertThat(spoolFiles()).isEqualTo(1);
    }
}
