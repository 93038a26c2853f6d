package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One deadline for every delivery attempt, whatever the sink ({@code bridge.delivery.attempt-timeout}): an attempt
 * still going when it is due is aborted (its connection closed), so a receiver that answers one byte a second, or
 * never finishes, costs one failed attempt and the lane retries as usual. Per-read timeouts cannot do that: a peer
 * that sends a byte before each one runs out keeps them all happy.
 *
 * <p>At stop ({@link #stopping}) the attempts still in flight, and any that begins later, get at most a grace period,
 * so a graceful stop ends within its shutdown timeout; their messages stay in the spool for the next start.
 */
public final class AttemptDeadlines extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptDeadlines.class);

    private final Duration timeout;
    private final ScheduledThreadPoolExecutor timer;
    private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();
    /** System.nanoTime() by which every attempt ends once the agent is stopping; Long.MAX_VALUE until then. */
    private volatile long stopBy = Long.MAX_VALUE;
    private volatile boolean stopping;

    public AttemptDeadlines(Duration timeout) {
        this.timeout = timeout;
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "attempt-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    public Duration timeout() {
        return timeout;
    }

    /**
     * An attempt begins: {@code abort} closes its connection if it is still going at its deadline. Once the agent's
     * stop has no time left for attempts, none begins (nothing is sent that the agent could not wait for).
     */
    public Attempt begin(Runnable abort) throws SocketTimeoutException {
        if (stopping && System.nanoTime() - stopBy >= 0) {
            throw new SocketTimeoutException("not attempted: the agent is stopping; the message stays in the spool");
        }
        Attempt attempt = new Attempt(abort, System.nanoTime() + timeout.toNanos());
        inFlight.add(attempt);
        attempt.schedule();
        return attempt;
    }

    /** The agent is stopping: attempts in flight and later ones end within {@code grace}. */
    public void stopping(Duration grace) {
        stopBy = System.nanoTime() + grace.toNanos();
        stopping = true;
        if (!inFlight.isEmpty()) {
            LOG.info("Stopping: {} delivery attempt(s) in flight get {} s more; their messages stay in the spool if "
                    + "they do not finish", inFlight.size(), grace.toSeconds());
        }
        inFlight.forEach(Attempt::schedule);
    }

    /** The agent is stopping: attempts end at the stop's grace rather than their own deadline. */
    public boolean isStopping() {
        return stopping;
    }

    @Override
    protected void doStop() {
        timer.shutdownNow();
    }

    /** One attempt: {@link #close} when it is over, answered or not. */
    public final class Attempt implements AutoCloseable {
        private final Runnable abort;
        private final long deadline;
        private volatile boolean expired;
        private ScheduledFuture<?> due;

        private Attempt(Runnable abort, long deadline) {
            this.abort = abort;
            this.deadline = deadline;
        }

        private long endsAt() {
            return Math.min(deadline, stopBy);
        }

        private synchronized void schedule() {
            if (!inFlight.contains(this)) {
                return;
            }
            if (due != null) {
                due.cancel(false);
            }
            long delay = Math.max(0, endsAt() - System.nanoTime());
            try {
                due = timer.schedule(this::expire, delay, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                expire();
            }
        }

        private void expire() {
            if (inFlight.remove(this)) {
                expired = true;
                abort.run();
            }
        }

        /** Milliseconds left (at least 1 while time is left, 0 once it is up). */
        public long remainingMillis() {
            long left = endsAt() - System.nanoTime();
            return left <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
        }

        /** The deadline (or the stop) ended this attempt. */
        public boolean expired() {
            return expired || remainingMillis() == 0;
        }

        /**
         * What a read or write cut short by the deadline throws instead of "socket closed" or "read timed out" (the
         * consequences, not the cause: left out, so that the log names the deadline).
         */
        public SocketTimeoutException timedOut(Throwable consequence) {
            return new SocketTimeoutException(!stopping
                    ? "no complete answer within " + timeout.toMillis() + " ms (bridge.delivery.attempt-timeout)"
                    : "attempt ended by the agent's stop");
        }

        /** Closes the connection now (an answer no longer wanted), as the deadline would. */
        public void abortNow() {
            abort.run();
        }

        @Override
        public synchronized void close() {
            inFlight.remove(this);
            if (due != null) {
                due.cancel(false);
            }
        }
    }
}
