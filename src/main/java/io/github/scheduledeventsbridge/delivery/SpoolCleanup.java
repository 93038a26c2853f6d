package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Deletes the spool files whose messages have all left (delivered or dead-lettered). A file that cannot be deleted
 * now (the disk read-only, for a moment or for long) no longer counts as waiting, and is deleted again and again,
 * with growing pauses, until it goes: its message must not look late, nor be sent again in this run. Should the agent
 * stop first, the next start sends it again (same id, as after a crash).
 */
final class SpoolCleanup {

    private static final Logger LOG = LoggerFactory.getLogger(SpoolCleanup.class);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LONGEST_PAUSE = Duration.ofSeconds(30);

    /** Files waiting to be deleted again, with the pause before their next try. */
    private final Map<Path, Duration> undeleted = new ConcurrentHashMap<>();
    private ScheduledExecutorService retries;

    /** Deletes {@code file}; false only when it was already gone. One that cannot be deleted now is retried. */
    boolean delete(Path file) {
        try {
            return AtomicFiles.deleteIfExists(file);
        } catch (IOException e) {
            if (undeleted.putIfAbsent(file, FIRST_RETRY) == null) {
                if (undeleted.size() == 1) {
                    LOG.warn("Spool file {} left the spool (its messages were delivered) but cannot be deleted ({}): "
                            + "retried until it can be; if the agent stops first, the next start sends it again (same "
                            + "id)", file, e.toString());
                } else {
                    LOG.debug("Spool file {} cannot be deleted yet ({})", file, e.toString());
                }
                retryLater(file, FIRST_RETRY);
            }
            return true;
        }
    }

    /** How many files wait to be deleted again. */
    int pending() {
        return undeleted.size();
    }

    private synchronized void retryLater(Path file, Duration pause) {
        if (retries == null || retries.isShutdown()) {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "spool-cleanup");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            retries = executor;
        }
        retries.schedule(() -> retry(file), pause.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void retry(Path file) {
        Duration pause = undeleted.get(file);
        if (pause == null) {
            return;
        }
        try {
            AtomicFiles.deleteIfExists(file);
            undeleted.remove(file);
            if (undeleted.isEmpty()) {
                LOG.info("Spool file {} deleted: the spool can be written again, and no delivered file is left", file);
            }
        } catch (IOException stillNot) {
            Duration next = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            undeleted.put(file, next);
            retryLater(file, next);
        }
    }

    /** At stop: files still not deleted are sent again after the next start; said once. */
    synchronized void stop() {
        if (retries != null) {
            retries.shutdownNow();
        }
        if (!undeleted.isEmpty()) {
            LOG.warn("Stopping with {} delivered spool file(s) that could not be deleted (e.g. {}): the next start sends "
                    + "their messages again (same ids)", undeleted.size(), undeleted.keySet().iterator().next());
        }
    }
}
