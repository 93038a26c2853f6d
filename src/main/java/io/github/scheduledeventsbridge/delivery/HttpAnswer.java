package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.logging.Redaction;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;
import org.apache.camel.Headers;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * Route step after a webhook POST: what the answer means. The call itself never throws on a status
 * (throwExceptionOnFailure is off) because Camel's own exception would print the full URL, and webhook
 * URLs carry secrets.
 * <ul>
 *   <li>2xx: delivered.</li>
 *   <li>408, 429, 5xx (and anything else that is neither a 3xx nor a 4xx): {@link DeliveryFailedException},
 *       retried until delivered; a {@code Retry-After} (seconds or HTTP-date) sets the pause before the next
 *       attempt.</li>
 *   <li>a 3xx (never followed: the signed body would go elsewhere) or any other 4xx:
 *       {@link DeliveryRejectedException}; the receiver refuses this message, which is retried for
 *       {@code bridge.delivery.dead-letter-after} and then moved to the dead-letter directory.</li>
 * </ul>
 */
public final class HttpAnswer {

    /** Read by Camel's redelivery as the pause before the next attempt (ms). */
    static final String REDELIVERY_DELAY_HEADER = "CamelRedeliveryDelay";
    /** A receiver asking for more than this is asked again after this long. */
    static final Duration RETRY_AFTER_CAP = Duration.ofHours(1);

    private static final int REASON_LENGTH = 120;

    private final Clock clock;

    public HttpAnswer(Clock clock) {
        this.clock = clock;
    }

    public void classify(@Header(Exchange.HTTP_RESPONSE_CODE) Integer status,
                         @Header(Exchange.HTTP_RESPONSE_TEXT) String statusText,
                         @Header("Retry-After") String retryAfter,
                         org.apache.camel.Message answer,
                         @ExchangeProperty(Sink.PROPERTY) Sink sink,
                         @Headers Map<String, Object> headers) {
        if (status != null && status >= 200 && status <= 299) {
            // The body is read only for a refusal's reason: as a String parameter, every accepted POST's
            // (cached) answer was copied through an 8 KB reader, a third of what a delivery allocated.
            return;
        }
        String body = answer.getBody(String.class);
        retryDelay(retryAfter, clock.instant()).ifPresent(delay -> headers.put(REDELIVERY_DELAY_HEADER, delay.toMillis()));
        String said = "HTTP " + status + reason(statusText, body);
        boolean redirect = status != null && status >= 300 && status <= 399;
        if (redirect && headers.get("Location") != null) {
            // Not followed (the signed POST would be replayed elsewhere): the configured URL is out of date.
            said += " (moved to " + Redaction.redact(
                    String.valueOf(headers.get("Location"))) + ")";
        }
        if (redirect || status != null && status >= 400 && status <= 499 && status != 408 && status != 429) {
            throw new DeliveryRejectedException(sink.id() + " refused the message: " + said);
        }
        throw new DeliveryFailedException(sink.id() + " answered " + said + "; will retry");
    }

    /** Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3), capped; empty when absent or unreadable. */
    static java.util.Optional<Duration> retryDelay(String retryAfter, Instant now) {
        if (retryAfter == null || retryAfter.isBlank()) {
            return java.util.Optional.empty();
        }
        Duration delay;
        try {
            delay = Duration.ofSeconds(Long.parseLong(retryAfter.trim()));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(retryAfter.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                delay = Duration.between(now, at);
            } catch (DateTimeParseException notADate) {
                return java.util.Optional.empty();
            }
        }
        if (delay.isNegative()) {
            delay = Duration.ZERO;
        }
        return java.util.Optional.of(delay.compareTo(RETRY_AFTER_CAP) > 0 ? RETRY_AFTER_CAP : delay);
    }

    /**
     * The status text and the start of the body (camel-http hands over at most {@link BoundedHttpClient#MAX_ANSWER_BYTES}
     * of it), on one line, redacted ({@link Redaction#answerBody}: an echoed request's tokens and credentials, URLs
     * reduced to their host): fit for a log and a dead letter's reason.
     */
    static String reason(String statusText, String body) {
        StringBuilder reason = new StringBuilder();
        if (statusText != null && !statusText.isBlank()) {
            reason.append(' ').append(Redaction.peerText(statusText.trim()));
        }
        if (body != null && !body.isBlank()) {
            String redacted = Redaction.answerBody(body.replaceAll("\\s+", " ").trim());
            String text = redacted.length() > REASON_LENGTH ? redacted.substring(0, REASON_LENGTH) + "…" : redacted;
            reason.append(": ").append(text);
        }
        return reason.toString();
    }

    /** No answer worth keeping, or one that says "later": retried until delivered. */
    public static final class DeliveryFailedException extends RuntimeException {
        public DeliveryFailedException(String message) {
            super(message);
        }
    }

    /** The receiver refuses this message (a 4xx other than 408 and 429): retried for a while, then dead-lettered. */
    public static final class DeliveryRejectedException extends RuntimeException {
        public DeliveryRejectedException(String message) {
            super(message);
        }
    }
}
