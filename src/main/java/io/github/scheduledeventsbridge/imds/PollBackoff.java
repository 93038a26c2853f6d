package io.github.scheduledeventsbridge.imds;

import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * When the next poll may go out. IMDS asks clients to slow down with 429 (throttled), 410 and 5xx
 * (busy or restarting): then the interval doubles per failure up to a ceiling, and Retry-After is
 * honoured. Connection errors and timeouts keep the normal pace, so recovery is seen within one interval.
 */
public final class PollBackoff {

    private static final Logger LOG = LoggerFactory.getLogger(PollBackoff.class);

    private final Clock clock;
    private final Duration interval;
    private final Duration ceiling;
    private Instant notBefore = Instant.MIN;
    private int consecutiveFailures;
    private boolean answeredOnce;
    private volatile String lastFailureKind = "none";
    private volatile Instant lastAnswer;

    public PollBackoff(Clock clock, Duration interval, Duration ceiling) {
        this.clock = clock;
        this.interval = interval;
        this.ceiling = ceiling;
    }

    /** The poll's one decision per tick: nothing while IMDS has asked us to slow down, else which of its two GETs. */
    public synchronized PollTick tick() {
        return !isDue() ? PollTick.WAIT : answeredOnce ? PollTick.POLL : PollTick.FIRST_CALL;
    }

    public synchronized boolean isDue() {
        return !clock.instant().isBefore(notBefore);
    }

    /** IMDS may take up to two minutes to answer the very first request after it is enabled. */
    public synchronized boolean hasAnsweredOnce() {
        return answeredOnce;
    }

    public synchronized void succeeded() {
        if (consecutiveFailures > 0) {
            LOG.info("IMDS recovered: answered again after {} failed poll(s){}", consecutiveFailures,
                    lastAnswer == null ? "" : ", " + Duration.between(lastAnswer, clock.instant()).toSeconds()
                            + " s after its last complete document");
        }
        consecutiveFailures = 0;
        answeredOnce = true;
        lastAnswer = clock.instant();
        notBefore = Instant.MIN;
    }

    /** Route step of the poll's error handler. */
    public void failed(Exchange exchange) {
        failed(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class));
    }

    public synchronized Duration failed(Throwable cause) {
        String kind = kind(cause);
        lastFailureKind = kind;
        if (kind.equals("state-write")) {
            // IMDS answered: not an IMDS failure (no back-off, no "IMDS recovered" next poll). The storage health
            // check carries the reason, and StorageHealth logs the outage once, then in summaries.
            return Duration.ZERO;
        }
        consecutiveFailures++;
        Duration delay = Duration.ZERO;
        if (cause instanceof ImdsStatusException status && slowDown(status.status())) {
            // IMDS's own Retry-After wins over our ceiling, within reason.
            Duration exponential = exponential().compareTo(ceiling) > 0 ? ceiling : exponential();
            delay = longest(exponential, retryAfter(status.retryAfter()));
            notBefore = clock.instant().plus(delay);
        }
        // One line for the first failure; OutageLog then writes a summary every bridge.log.summary-interval.
        if (consecutiveFailures == 1) {
            LOG.warn("IMDS poll failed ({}: {}); nothing changes until a complete document arrives{}",
                    kind, cause == null ? "unknown" : cause.getMessage(),
                    delay.isZero() ? "" : ", next poll in " + delay.toMillis() + " ms");
        }
        return delay;
    }

    /** When IMDS last answered with a complete document, or null. */
    public Instant lastAnswer() {
        return lastAnswer;
    }

    public String lastFailureKind() {
        return lastFailureKind;
    }

    public synchronized int consecutiveFailures() {
        return consecutiveFailures;
    }

    private Duration exponential() {
        int exponent = Math.min(consecutiveFailures, 16);
        return interval.multipliedBy(1L << exponent);
    }

    private static Duration longest(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static boolean slowDown(int status) {
        return status == 429 || status == 410 || status >= 500;
    }

    private static final Duration RETRY_AFTER_LIMIT = Duration.ofMinutes(5);

    private static Duration retryAfter(String header) {
        if (header != null) {
            try {
                Duration asked = Duration.ofSeconds(Math.max(0, Long.parseLong(header.trim())));
                return asked.compareTo(RETRY_AFTER_LIMIT) > 0 ? RETRY_AFTER_LIMIT : asked;
            } catch (NumberFormatException ignored) {
                // An HTTP-date Retry-After is rare on IMDS; the exponential delay applies.
            }
        }
        return Duration.ZERO;
    }

    /** A short label for logs and metrics. */
    public static String kind(Throwable cause) {
        Throwable t = cause;
        while (t != null) {
            if (t instanceof ImdsStatusException s) {
                return s.status() == 429 ? "throttled" : s.status() >= 500 ? "server-error" : "http-" + s.status();
            }
            if (t instanceof DocumentTooLargeException) {
                return "too-large";
            }
            if (t instanceof InvalidDocumentException) {
                return "invalid-document";
            }
            if (t instanceof io.github.scheduledeventsbridge.storage.StateWriteException) {
                return "state-write";
            }
            if (t instanceof SocketTimeoutException || t instanceof HttpTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return "timeout";
            }
            if (t instanceof ConnectException) {
                return "connection";
            }
            t = t.getCause();
        }
        return "io-error";
    }
}
