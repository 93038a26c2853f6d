package io.github.scheduledeventsbridge.storage;

import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.eventlog.LifeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether the last write of the state file and of the spool worked. A failed write makes the agent not
 * ready, with the reason (a path and the OS error: no secret), until a write of the same kind succeeds:
 * otherwise an agent that records nothing would look healthy.
 *
 * <p>And the log of such an outage: one ERROR when a kind starts failing, saying what is and is not on disk, then a
 * WARN summary every {@code bridge.log.summary-interval} ({@link #summarize}, from {@link OutageLog}'s ticks), and
 * one INFO when writing works again. Every poll retries the write; it does not repeat the line.
 */
public final class StorageHealth {

    private static final Logger LOG = LoggerFactory.getLogger(StorageHealth.class);

    public static final String STATE = "state";
    public static final String SPOOL = "spool";

    private static final class Failure {
        final Instant since;
        Instant lastLogged;
        long failedWrites = 1;
        String reason;

        Failure(Instant since, String reason) {
            this.since = since;
            this.lastLogged = since;
            this.reason = reason;
        }
    }

    private final Clock clock;
    private final Map<String, Failure> failures = new TreeMap<>();

    public StorageHealth() {
        this(Clock.systemUTC());
    }

    public StorageHealth(Clock clock) {
        this.clock = clock;
    }

    public synchronized void failed(String what, String reason) {
        Failure failure = failures.get(what);
        if (failure != null) {
            failure.failedWrites++;
            failure.reason = reason;
            return;
        }
        failures.put(what, new Failure(clock.instant(), reason));
        String line = SPOOL.equals(what)
                ? "The spool cannot be written: " + reason + ". The new transitions are recorded in state.json (its "
                + "outbox) and are spooled, then delivered, as soon as the spool can be written; nothing is lost. Every "
                + "poll tries again; not ready (check 'storage') until then"
                : "The state cannot be written: " + reason + ". state.json keeps the last document recorded; the changes "
                + "since (and their transitions) are recorded as soon as it can be written; nothing is lost. Every poll "
                + "tries again; not ready (check 'storage') until then";
        LOG.error(line);
        AgentLifeLog.report(LifeEvent.STORAGE_FAILING, line);
    }

    public synchronized void succeeded(String what) {
        Failure failure = failures.remove(what);
        if (failure != null) {
            String line = "The " + (SPOOL.equals(what) ? "spool" : "state") + " can be written again, after "
                    + Duration.between(failure.since, clock.instant()).toSeconds() + " s and " + failure.failedWrites
                    + " failed write(s)";
            LOG.info(line);
            AgentLifeLog.report(LifeEvent.STORAGE_RECOVERED, line);
        }
    }

    public synchronized boolean isFailing(String what) {
        return failures.containsKey(what);
    }

    /** One WARN per failing kind whose last line is at least {@code interval} old. */
    public synchronized void summarize(Duration interval) {
        Instant now = clock.instant();
        failures.forEach((what, failure) -> {
            if (Duration.between(failure.lastLogged, now).compareTo(interval) >= 0) {
                failure.lastLogged = now;
                LOG.warn("The {} still cannot be written, for {} s: {} failed write(s), last error: {}",
                        SPOOL.equals(what) ? "spool" : "state", Duration.between(failure.since, now).toSeconds(),
                        failure.failedWrites, failure.reason);
            }
        });
    }

    /** The reasons of the failing kinds, or empty when every last write worked. */
    public synchronized Optional<String> problem() {
        if (failures.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder text = new StringBuilder();
        failures.forEach((what, failure) -> text.append(text.length() == 0 ? "" : "; ")
                .append(what).append(" write failed: ").append(failure.reason));
        return Optional.of(text.toString());
    }
}
