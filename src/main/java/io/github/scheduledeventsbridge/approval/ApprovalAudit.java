package io.github.scheduledeventsbridge.approval;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The approval audit trail: every decision is logged once, with the client's address, the EventIds (once the
 * signature proved them genuine) and the outcome. Approvals are always logged. Refusals are what a flood is made
 * of, so at most {@code refusalsPerMinute} lines a minute are written; the rest are counted and summed up in one
 * line ("… and 1234 more refusals") when the minute is over.
 */
public final class ApprovalAudit {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.scheduledeventsbridge.approval.audit");
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final Clock clock;
    private final int refusalsPerMinute;
    private Instant windowStart;
    private int logged;
    private long suppressed;

    public ApprovalAudit(Clock clock, int refusalsPerMinute) {
        this.clock = clock;
        this.refusalsPerMinute = refusalsPerMinute;
        this.windowStart = clock.instant();
    }

    /** {@code from}: the client's address, or the queue and message an approval was taken from. */
    public void approved(String from, List<String> eventIds) {
        LOG.info("Approval from {} for {}: approved, IMDS accepted", from.replaceAll("\\p{Cntrl}", "?"),
                eventIds.toString().replaceAll("\\p{Cntrl}", "?"));
    }

    /** {@code eventIds} is null when the request was refused before its body could be trusted. */
    public void refused(String client, int status, String reason, List<String> eventIds) {
        // Reasons may quote an EventId from a (signed) body: no control characters reach the log.
        warnRateLimited("Approval request from " + client + (eventIds == null ? "" : " for " + eventIds)
                + " refused with " + status + ": " + reason);
    }

    /**
     * A connection closed without an answer (no whole request in time, or the oldest idle one at a cap): nothing
     * was written to it, so no status is named. Rate-limited with the refusals: a flood is made of these.
     */
    public void closed(String client, String reason) {
        warnRateLimited("Approval connection from " + client + " closed without an answer: " + reason);
    }

    private void warnRateLimited(String line) {
        synchronized (this) {
            rollWindow();
            if (logged >= refusalsPerMinute) {
                suppressed++;
                return;
            }
            logged++;
        }
        LOG.warn(line.replaceAll("\\p{Cntrl}", "?"));
    }

    /** Writes the summary of a minute that is over; called on a timer, so a flood that stopped is still summed up. */
    public void flush() {
        synchronized (this) {
            rollWindow();
        }
    }

    /** Refusals not written to the log in the current minute (for tests). */
    public synchronized long suppressed() {
        return suppressed;
    }

    private void rollWindow() {
        Instant now = clock.instant();
        if (Duration.between(windowStart, now).compareTo(MINUTE) < 0 && !now.isBefore(windowStart)) {
            return;
        }
        if (suppressed > 0) {
            LOG.warn("… and {} more approval refusals and unanswered connections in the last minute (not logged one by one)",
                    suppressed);
        }
        windowStart = now;
        logged = 0;
        suppressed = 0;
    }
}
