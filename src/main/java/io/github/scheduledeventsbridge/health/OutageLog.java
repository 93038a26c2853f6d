package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.eventlog.LifeEvent;
import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The log of an outage, in our words: one WARN when a sink (or IMDS) starts failing, one summary every
 * {@code bridge.log.summary-interval} while it goes on (messages waiting, oldest, last error, redacted), one
 * INFO when it recovers, and at stop one line per sink that still has messages waiting. Camel's own
 * per-attempt and per-message lines are switched off (routes/error-handling.yaml).
 */
public final class OutageLog extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.scheduledeventsbridge.outage");

    /** {@code bridge.log.summary-interval}: ms between two summaries of one ongoing outage. */
    public record Settings(Duration summaryInterval) {
        public static Settings read(SettingsReader reader) {
            return new Settings(reader.millis("bridge.log.summary-interval", 300_000));
        }
    }

    private static final class Outage {
        final Instant since;
        long failedAttempts;
        String lastError;
        Instant lastLogged;
        /** The sink's lanes whose last attempt failed: the outage ends when none is left. */
        final java.util.Set<String> failingLanes = new java.util.HashSet<>();

        Outage(Instant since) {
            this.since = since;
            this.lastLogged = since;
        }
    }

    private final Settings settings;
    private final SinkRegistry sinks;
    private final Spool spool;
    private final PollBackoff poll;
    private final Clock clock;
    private final Map<String, Outage> sinkOutages = new ConcurrentHashMap<>();
    private volatile Instant imdsLastLogged;
    private volatile StorageHealth storage;
    private ScheduledExecutorService ticker;

    public OutageLog(Settings settings, SinkRegistry sinks, Spool spool, PollBackoff poll, Clock clock) {
        this.settings = settings;
        this.sinks = sinks;
        this.spool = spool;
        this.poll = poll;
        this.clock = clock;
    }

    /**
     * Before a retry ({@link DeliveryOutcome}): one failed attempt in one of the sink's lanes (its queue). A sink
     * with several lanes has one outage, from the first lane that fails until every failing lane delivers again:
     * one message its receiver keeps refusing holds up its lane only, and must not make the sink look as if it
     * failed and recovered at every retry while the other lanes deliver.
     */
    public synchronized void attemptFailed(String sinkId, String lane, Throwable cause) {
        String error = describe(cause);
        Outage outage = sinkOutages.computeIfAbsent(sinkId, id -> {
            String line = "Sink " + sinks.label(id) + " is failing: " + error + ". Retrying with back-off; messages "
                    + "wait on disk, nothing is lost (next summary in " + settings.summaryInterval().toSeconds() + " s)";
            LOG.warn(line);
            AgentLifeLog.report(LifeEvent.SINK_FAILING, line);
            return new Outage(clock.instant());
        });
        synchronized (outage) {
            outage.failedAttempts++;
            outage.lastError = error;
            outage.failingLanes.add(lane);
        }
    }

    /** After a delivery ({@link DeliveryOutcome}): this lane works again; the sink's outage ends once no lane is failing. */
    public void delivered(String sinkId, SpoolEntry entry) {
        if (sinkId == null || sinkOutages.isEmpty()) {
            return;
        }
        recovered(sinkId, entry == null ? sinkId : entry.queue());
    }

    private synchronized void recovered(String sinkId, String lane) {
        Outage outage = sinkOutages.get(sinkId);
        if (outage == null) {
            return;
        }
        synchronized (outage) {
            outage.failingLanes.remove(lane);
            if (!outage.failingLanes.isEmpty()) {
                return;
            }
        }
        sinkOutages.remove(sinkId);
        String line = "Sink " + sinks.label(sinkId) + " recovered: delivering again after "
                + Duration.between(outage.since, clock.instant()).toSeconds() + " s (" + outage.failedAttempts
                + " failed attempt(s)); " + spool.depth(sinkId) + " message(s) still waiting";
        LOG.info(line);
        AgentLifeLog.report(LifeEvent.SINK_RECOVERED, line);
    }

    /** Also the summaries of a state or spool that cannot be written (StorageHealth's words). */
    public OutageLog watching(StorageHealth storage) {
        this.storage = storage;
        return this;
    }

    /** Logs the summaries that are due; called by the ticker, and by tests. */
    public void summarize() {
        Instant now = clock.instant();
        StorageHealth watched = storage;
        if (watched != null) {
            watched.summarize(settings.summaryInterval());
        }
        sinkOutages.forEach((sinkId, outage) -> {
            synchronized (outage) {
                if (Duration.between(outage.lastLogged, now).compareTo(settings.summaryInterval()) < 0) {
                    return;
                }
                outage.lastLogged = now;
                Instant oldest = spool.waitingSince(sinkId);
                LOG.warn("Sink {} still failing for {} s: {} message(s) waiting{}, {} failed attempt(s), last error: {}",
                        sinks.label(sinkId), Duration.between(outage.since, now).toSeconds(), spool.depth(sinkId),
                        oldest == null ? "" : ", oldest for " + Duration.between(oldest, now).toSeconds() + " s",
                        outage.failedAttempts, outage.lastError);
            }
        });
        int failures = poll.consecutiveFailures();
        if (failures == 0) {
            imdsLastLogged = null;
            return;
        }
        Instant reference = imdsLastLogged;
        if (reference == null) {
            // PollBackoff logged the first failure; the summaries count from then.
            imdsLastLogged = now;
            return;
        }
        if (Duration.between(reference, now).compareTo(settings.summaryInterval()) >= 0) {
            imdsLastLogged = now;
            Instant last = poll.lastAnswer();
            LOG.warn("IMDS still failing: {} failed poll(s) in a row, last complete document {}, last error: {}",
                    failures, last == null ? "never (since start)" : Duration.between(last, now).toSeconds() + " s ago",
                    poll.lastFailureKind());
        }
    }

    /**
     * The failure in one line, redacted (a peer's reply may quote credentials: {@link Redaction#peerText}); a wrapper's
     * generic message ("Exception reading response") is followed by what its root cause says.
     */
    static String describe(Throwable cause) {
        if (cause == null) {
            return "unknown error";
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != cause && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        String text = Redaction.peerText(message.replaceAll("\\s+", " ").trim());
        return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }

    /**
     * A tenth of the summary interval: a summary is at most that late. Not capped at a second: with the default
     * five minutes the agent on every VM would wake up every second only to find nothing to say.
     */
    static long tickMillis(Duration summaryInterval) {
        return Math.max(50, summaryInterval.toMillis() / 10);
    }

    @Override
    protected void doStart() {
        long tick = tickMillis(settings.summaryInterval());
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "outage-log");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleWithFixedDelay(() -> {
            try {
                summarize();
            } catch (RuntimeException e) {
                LOG.debug("Outage summary failed", e);
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }

    /** Once the routes stopped: one line per sink with messages left, instead of one per message. */
    public void reportBacklog() {
        Instant now = clock.instant();
        for (Sink sink : sinks.sinks()) {
            long depth = spool.depth(sink.id());
            if (depth > 0) {
                Instant oldest = spool.waitingSince(sink.id());
                LOG.warn("Stopping with {} undelivered message(s) for sink {}{}: kept in the spool, delivered after the next start",
                        depth, sinks.label(sink.id()),
                        oldest == null ? "" : " (oldest waiting " + Duration.between(oldest, now).toSeconds() + " s)");
            }
        }
    }
}
