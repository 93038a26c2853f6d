package io.github.scheduledeventsbridge.delivery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HttpAnswerTest {

    private static final Instant NOW = Instant.parse("2026-11-20T10:15:00Z");
    private final HttpAnswer answer = new HttpAnswer(Clock.fixed(NOW, ZoneOffset.UTC));

    private static final org.apache.camel.CamelContext camel = new org.apache.camel.impl.DefaultCamelContext();

    @org.junit.jupiter.api.BeforeAll
    static void startCamel() {
        camel.start();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopCamel() throws Exception {
        camel.close();
    }

    /** The answer as the http component leaves it: its body as a stream. */
    private org.apache.camel.Message answer(String body) {
        org.apache.camel.Message message = new org.apache.camel.support.DefaultExchange(camel).getMessage();
        message.setBody(body == null ? null : new java.io.ByteArrayInputStream(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return message;
    }

    private static final Sink SINK = new Sink("webhook-abc", "d", "direct:webhook-attempt", Sink.Target.NONE, e -> true);

    private Map<String, Object> classify(int status, String retryAfter, String body) {
        Map<String, Object> headers = new HashMap<>();
        answer.classify(status, "Reason", retryAfter, answer(body), SINK, headers);
        return headers;
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204, 299})
    @DisplayName("any 2xx is delivered")
    void delivered(int status) {
        assertThatCode(() -> classify(status, null, null)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 429, 500, 502, 503, 504, 100})
    @DisplayName("408, 429, 5xx and anything else that is neither a 3xx nor a 4xx are retried until delivered")
    void retried(int status) {
        assertThatThrownBy(() -> classify(status, null, null)).isInstanceOf(HttpAnswer.DeliveryFailedException.class)
                .hasMessageContaining("webhook-abc").hasMessageContaining("HTTP " + status);
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 410, 413, 422, 301, 302, 307, 308})
    @DisplayName("other 4xx, and redirects (never followed with a signed body): the receiver refuses the message")
    void refused(int status) {
        assertThatThrownBy(() -> classify(status, null, "{\"error\":\"see https://fn.example.com/api?code=SECRET\"}"))
                .isInstanceOf(HttpAnswer.DeliveryRejectedException.class)
                .hasMessageContaining("webhook-abc refused the message: HTTP " + status + " Reason")
                .hasMessageContaining("https://fn.example.com/…").hasMessageNotContaining("SECRET");
    }

    @Test
    @DisplayName("a redirect names the host it points to, never its path or query")
    void redirectNamesItsTarget() {
        Map<String, Object> headers = new HashMap<>();
        headers.put("Location", "https://new.example.com/api/fn?code=TOKEN");
        assertThatThrownBy(() -> answer.classify(308, "Permanent Redirect", null, answer(null), SINK, headers))
                .isInstanceOf(HttpAnswer.DeliveryRejectedException.class)
                .hasMessageContaining("moved to https://new.example.com/…").hasMessageNotContaining("TOKEN");
    }

    @Test
    @DisplayName("Retry-After sets the next pause: seconds, an HTTP-date, capped at an hour, ignored when unreadable")
    void retryAfter() {
        Map<String, Object> headers = new HashMap<>();
        assertThatThrownBy(() -> answer.classify(429, null, "7", answer(null), SINK, headers));
        assertThat(headers).containsEntry(HttpAnswer.REDELIVERY_DELAY_HEADER, 7000L);

        assertThat(HttpAnswer.retryDelay("Fri, 20 Nov 2026 10:15:30 GMT", NOW)).contains(Duration.ofSeconds(30));
        assertThat(HttpAnswer.retryDelay("Fri, 20 Nov 2026 10:00:00 GMT", NOW)).contains(Duration.ZERO);
        assertThat(HttpAnswer.retryDelay("86400", NOW)).contains(HttpAnswer.RETRY_AFTER_CAP);
        assertThat(HttpAnswer.retryDelay("soon", NOW)).isEmpty();
        assertThat(HttpAnswer.retryDelay(null, NOW)).isEmpty();
    }

    @Test
    @DisplayName("the reason is one short line")
    void shortReason() {
        String reason = HttpAnswer.reason("Bad Request", "line one\nline two " + "x".repeat(500));
        assertThat(reason).doesNotContain("\n").startsWith(" Bad Request: line one line two").hasSizeLessThan(150);
    }
}
