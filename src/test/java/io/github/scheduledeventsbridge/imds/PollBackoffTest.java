package io.github.scheduledeventsbridge.imds;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

class PollBackoffTest {

    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration CEILING = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-20T10:15:00Z"));
    private final PollBackoff backoff = new PollBackoff(clock, INTERVAL, CEILING);

    @Test
    @DisplayName("a fresh backoff is due at once and has not seen an answer")
    void dueInitially() {
        assertThat(backoff.isDue()).isTrue();
        assertThat(backoff.hasAnsweredOnce()).isFalse();
        assertThat(backoff.consecutiveFailures()).isZero();
        assertThat(backoff.lastFailureKind()).isEqualTo("none");
    }

    @Test
    @DisplayName("the tick: FIRST_CALL until IMDS has answered, WAIT while it asks us to slow down, then POLL")
    void tickDecidesTheGet() {
        assertThat(backoff.tick()).isEqualTo(PollTick.FIRST_CALL);
        backoff.failed(new ConnectException("refused"));
        assertThat(backoff.tick()).as("a refused connection keeps the pace").isEqualTo(PollTick.FIRST_CALL);
        backoff.failed(new ImdsStatusException(429, null));
        assertThat(backoff.tick()).isEqualTo(PollTick.WAIT);
        clock.advance(CEILING);
        assertThat(backoff.tick()).as("still waiting for its first answer").isEqualTo(PollTick.FIRST_CALL);
        backoff.succeeded();
        assertThat(backoff.tick()).isEqualTo(PollTick.POLL);
        backoff.failed(new ImdsStatusException(503, null));
        assertThat(backoff.tick()).isEqualTo(PollTick.WAIT);
        clock.advance(CEILING);
        assertThat(backoff.tick()).as("answered once in this run: the usual GET").isEqualTo(PollTick.POLL);
    }

    @Test
    @DisplayName("429: not due until twice the interval has passed")
    void throttledWaitsTwiceTheInterval() {
        Duration delay = backoff.failed(new ImdsStatusException(429, null));

        assertThat(delay).isEqualTo(INTERVAL.multipliedBy(2));
        assertDueAfter(INTERVAL.multipliedBy(2));
    }

    @Test
    @DisplayName("429 repeatedly: the delay doubles per failure and stops at the ceiling")
    void doublesUpToCeiling() {
        long[] expectedSeconds = {2, 4, 8, 16, 30, 30, 30};
        for (long seconds : expectedSeconds) {
            Duration delay = backoff.failed(new ImdsStatusException(429, null));
            assertThat(delay).isEqualTo(Duration.ofSeconds(seconds));
            assertDueAfter(Duration.ofSeconds(seconds));
        }
        assertThat(backoff.consecutiveFailures()).isEqualTo(expectedSeconds.length);
    }

    @Test
    @DisplayName("the delay stays at the ceiling however long the outage lasts (no overflow)")
    void longOutageStaysAtCeiling() {
        Duration delay = Duration.ZERO;
        for (int i = 0; i < 200; i++) {
            delay = backoff.failed(new ImdsStatusException(503, null));
        }
        assertThat(delay).isEqualTo(CEILING);
        assertDueAfter(CEILING);
    }

    @Test
    @DisplayName("Retry-After in seconds is honoured when longer than the exponential delay")
    void retryAfterHonoured() {
        Duration delay = backoff.failed(new ImdsStatusException(429, "7"));

        assertThat(delay).isEqualTo(Duration.ofSeconds(7));
        assertDueAfter(Duration.ofSeconds(7));
    }

    @Test
    @DisplayName("a Retry-After shorter than the exponential delay does not shorten it")
    void shortRetryAfterDoesNotShorten() {
        backoff.failed(new ImdsStatusException(429, null));
        backoff.failed(new ImdsStatusException(429, null));
        Duration delay = backoff.failed(new ImdsStatusException(429, "1"));

        assertThat(delay).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    @DisplayName("an unparsable Retry-After (HTTP date) falls back to the exponential delay")
    void httpDateRetryAfter() {
        Duration delay = backoff.failed(new ImdsStatusException(429, "Wed, 21 Oct 2026 07:28:00 GMT"));

        assertThat(delay).isEqualTo(INTERVAL.multipliedBy(2));
    }

    @ParameterizedTest(name = "[{index}] HTTP {0}")
    @ValueSource(ints = {500, 502, 503, 504, 410})
    @DisplayName("server errors and 410 slow the poll down")
    void serverErrorsBackOff(int status) {
        Duration delay = backoff.failed(new ImdsStatusException(status, null));

        assertThat(delay).isEqualTo(INTERVAL.multipliedBy(2));
        assertDueAfter(INTERVAL.multipliedBy(2));
    }

    @Test
    @DisplayName("connection errors, timeouts, invalid documents and other statuses keep the normal pace")
    void otherFailuresDoNotDelay() {
        Throwable[] failures = {
                new ConnectException("Connection refused"),
                new SocketTimeoutException("Read timed out"),
                new HttpTimeoutException("request timed out"),
                new InvalidDocumentException("truncated"),
                new ImdsStatusException(404, null),
                new ImdsStatusException(400, "60"),
                new IOException("broken pipe"),
                null};
        for (Throwable failure : failures) {
            assertThat(backoff.failed(failure)).as("delay after %s", failure).isZero();
            assertThat(backoff.isDue()).as("due after %s", failure).isTrue();
        }
        assertThat(backoff.consecutiveFailures()).isEqualTo(failures.length);
    }

    @Test
    @DisplayName("success resets: due at once, and the next 429 starts again from twice the interval")
    void successResets() {
        backoff.failed(new ImdsStatusException(429, null));
        backoff.failed(new ImdsStatusException(429, null));
        backoff.failed(new ImdsStatusException(429, null));
        assertThat(backoff.isDue()).isFalse();

        backoff.succeeded();

        assertThat(backoff.isDue()).isTrue();
        assertThat(backoff.consecutiveFailures()).isZero();
        assertThat(backoff.hasAnsweredOnce()).isTrue();
        assertThat(backoff.failed(new ImdsStatusException(429, null))).isEqualTo(INTERVAL.multipliedBy(2));
    }

    @Test
    @DisplayName("the route step reads the caught exception from the exchange")
    void failedFromExchange() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(camel);
            exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new ImdsStatusException(429, "7"));

            backoff.failed(exchange);

            assertThat(backoff.lastFailureKind()).isEqualTo("throttled");
            assertThat(backoff.consecutiveFailures()).isEqualTo(1);
            assertDueAfter(Duration.ofSeconds(7));
        }
    }

    @Test
    @DisplayName("the failure kind is remembered for metrics")
    void lastFailureKind() {
        backoff.failed(new ImdsStatusException(503, null));
        assertThat(backoff.lastFailureKind()).isEqualTo("server-error");
        backoff.failed(new ConnectException("refused"));
        assertThat(backoff.lastFailureKind()).isEqualTo("connection");
    }

    @Test
    @DisplayName("kind() labels each failure")
    void kinds() {
        assertThat(PollBackoff.kind(new ImdsStatusException(429, null))).isEqualTo("throttled");
        assertThat(PollBackoff.kind(new ImdsStatusException(500, null))).isEqualTo("server-error");
        assertThat(PollBackoff.kind(new ImdsStatusException(503, "5"))).isEqualTo("server-error");
        assertThat(PollBackoff.kind(new ImdsStatusException(404, null))).isEqualTo("http-404");
        assertThat(PollBackoff.kind(new ImdsStatusException(410, null))).isEqualTo("http-410");
        assertThat(PollBackoff.kind(new InvalidDocumentException("empty body"))).isEqualTo("invalid-document");
        assertThat(PollBackoff.kind(new DocumentTooLargeException("2 MB", 1024))).isEqualTo("too-large");
        assertThat(PollBackoff.kind(new SocketTimeoutException("Read timed out"))).isEqualTo("timeout");
        assertThat(PollBackoff.kind(new HttpTimeoutException("timed out"))).isEqualTo("timeout");
        assertThat(PollBackoff.kind(new HttpConnectTimeoutException("connect timed out"))).isEqualTo("timeout");
        assertThat(PollBackoff.kind(new ConnectException("Connection refused"))).isEqualTo("connection");
        assertThat(PollBackoff.kind(new IOException("broken pipe"))).isEqualTo("io-error");
        assertThat(PollBackoff.kind(null)).isEqualTo("io-error");
    }

    @Test
    @DisplayName("kind() looks through wrapping exceptions to the cause")
    void nestedKinds() {
        assertThat(PollBackoff.kind(new RuntimeException("route failed",
                new UncheckedIOException(new ConnectException("Connection refused"))))).isEqualTo("connection");
        assertThat(PollBackoff.kind(new CompletionException(new SocketTimeoutException("Read timed out"))))
                .isEqualTo("timeout");
        assertThat(PollBackoff.kind(new IllegalStateException(new ImdsStatusException(429, null))))
                .isEqualTo("throttled");
        assertThat(PollBackoff.kind(new RuntimeException(new RuntimeException(new InvalidDocumentException("x")))))
                .isEqualTo("invalid-document");
    }

    /** Checks that the poll is held back for exactly {@code delay}, then advances the clock past it. */
    private void assertDueAfter(Duration delay) {
        assertThat(backoff.isDue()).as("due right after the failure").isFalse();
        clock.advance(delay.minusMillis(1));
        assertThat(backoff.isDue()).as("due 1 ms before %s", delay).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(backoff.isDue()).as("due after %s", delay).isTrue();
    }

    /** A UTC clock that moves only when told to. */
    static final class MutableClock extends Clock {

        private Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }
}
