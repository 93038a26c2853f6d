package io.github.scheduledeventsbridge.delivery;

import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.InternetAddress;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class DeliveryRejectionsTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-20T10:15:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };
    private final DeliveryRejections rejections = new DeliveryRejections(Duration.ofMinutes(60), clock);

    private static SMTPSendFailedException smtp(int code) {
        return new SMTPSendFailedException("DATA", code, code + " 5.7.1 no", null, null, null, null);
    }

    @Test
    @DisplayName("refusals: webhook 4xx, SMTP 550-559 (directly, wrapped, or as a recipient failure), unreadable files")
    void refusals() throws Exception {
        assertThat(rejections.isRefusal(new HttpAnswer.DeliveryRejectedException("x"))).isTrue();
        assertThat(rejections.isRefusal(new SpoolContent.UnreadableSpoolFileException("not JSON"))).isTrue();
        assertThat(rejections.isRefusal(smtp(550))).isTrue();
        assertThat(rejections.isRefusal(smtp(554))).isTrue();
        assertThat(rejections.isRefusal(new RuntimeException(new MessagingException("wrapped", smtp(553))))).isTrue();
        SendFailedException recipients = new SendFailedException("Invalid Addresses",
                new SMTPAddressFailedException(new InternetAddress("x@example.com"), "RCPT", 550, "550 no such user"));
        assertThat(rejections.isRefusal(recipients)).isTrue();
    }

    @Test
    @DisplayName("not refusals: retried until delivered (outages, 5xx, 429, SMTP 4xx and failed authentication)")
    void notRefusals() {
        assertThat(rejections.isRefusal(new HttpAnswer.DeliveryFailedException("503"))).isFalse();
        assertThat(rejections.isRefusal(new java.net.ConnectException("refused"))).isFalse();
        assertThat(rejections.isRefusal(smtp(451))).isFalse();
        assertThat(rejections.isRefusal(new jakarta.mail.AuthenticationFailedException("535 5.7.8 bad credentials"))).isFalse();
        assertThat(rejections.isRefusal(null)).isFalse();
    }

    @Test
    @DisplayName("a refused message is retried until the window since its first refusal is over, then due for dead letter")
    void window() {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        HttpAnswer.DeliveryRejectedException refused = new HttpAnswer.DeliveryRejectedException("410");

        exchange.setException(refused);
        rejections.process(exchange);
        Long first = exchange.getProperty(DeliveryRejections.FIRST_REFUSED, Long.class);
        assertThat(first).as("the first refusal starts the window").isEqualTo(now.get().toEpochMilli());
        assertThat(rejections.retryWithinWindow(refused, first)).isTrue();
        now.set(now.get().plus(Duration.ofMinutes(59)));
        rejections.process(exchange);
        assertThat(exchange.getProperty(DeliveryRejections.FIRST_REFUSED, Long.class)).as("started once").isEqualTo(first);
        assertThat(rejections.retryWithinWindow(refused, first)).isTrue();
        assertThat(rejections.deadLetterDue(refused, first)).isFalse();
        now.set(now.get().plus(Duration.ofMinutes(1)));
        assertThat(rejections.retryWithinWindow(refused, first)).isFalse();
        assertThat(rejections.deadLetterDue(refused, first)).isTrue();
        assertThat(exchange.getProperties()).as("deciding changes nothing on the exchange")
                .containsOnlyKeys(DeliveryRejections.FIRST_REFUSED);
    }

    @Test
    @DisplayName("an outage does not start the window, and retries stopped before any refusal keep the message")
    void outagesStartNoWindow() {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        HttpAnswer.DeliveryFailedException outage = new HttpAnswer.DeliveryFailedException("503");
        exchange.setException(outage);
        rejections.process(exchange);
        assertThat(exchange.getProperty(DeliveryRejections.FIRST_REFUSED)).isNull();
        assertThat(rejections.deadLetterDue(outage, null)).isFalse();
    }

    @Test
    @DisplayName("an unreadable spool file is due for dead letter at once")
    void unreadableAtOnce() {
        SpoolContent.UnreadableSpoolFileException unreadable = new SpoolContent.UnreadableSpoolFileException("not JSON");
        assertThat(rejections.retryWithinWindow(unreadable, null)).isFalse();
        assertThat(rejections.deadLetterDue(unreadable, null)).isTrue();
    }
}
