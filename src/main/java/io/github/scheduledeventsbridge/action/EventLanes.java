package io.github.scheduledeventsbridge.action;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One lane per event: its tasks run one after another in the order they were submitted (so a recover never starts
 * before the same event's prepare ended), different events side by side on a small pool. A task waiting in a lane
 * holds no thread.
 */
final class EventLanes {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);

    private final ExecutorService pool;
    private final Map<String, Deque<Runnable>> lanes = new HashMap<>();

    EventLanes(int threads) {
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "bridge-action-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Queues the task behind everything already submitted for this event. */
    synchronized void submit(String eventKey, Runnable task) {
        Deque<Runnable> lane = lanes.get(eventKey);
        if (lane != null) {
            lane.add(task);
            return;
        }
        lane = new ArrayDeque<>();
        lane.add(task);
        lanes.put(eventKey, lane);
        try {
            pool.execute(() -> drain(eventKey));
        } catch (RejectedExecutionException stopping) {
            lanes.remove(eventKey);
        }
    }

    /** The agent stops: running tasks are interrupted, waiting ones dropped (their actions run at the next start). */
    void shutdownNow() {
        pool.shutdownNow();
    }

    private void drain(String eventKey) {
        while (!pool.isShutdown()) {
            Runnable next;
            synchronized (this) {
                next = lanes.get(eventKey).poll();
                if (next == null) {
                    lanes.remove(eventKey);
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // The lane goes on: a task that failed must not leave the event's next ones waiting for ever.
                LOG.error("An action task for {} failed: {}", eventKey, e.toString());
            }
        }
    }
}
