package io.github.scheduledeventsbridge;

import org.apache.camel.main.Main;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent under a service host that calls a start and a stop method on two threads of one JVM (procrun's jvm mode):
 * start runs the agent until stop asks it to end. Stopping is Camel Main's own graceful stop, the very one SIGTERM's
 * shutdown hook triggers (routes stopped, lanes drained, spool documents rewritten with only their waiting messages).
 */
final class ServiceHost {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceHost.class);

    interface Agent {
        int run(Main main) throws Exception;
    }

    private record Running(Main main, CountDownLatch stopped) {
    }

    private static final AtomicReference<Running> RUNNING = new AtomicReference<>();
    /** A stop that came before the agent was created: the start that follows returns at once. */
    private static final AtomicBoolean STOP_FIRST = new AtomicBoolean();

    private ServiceHost() {
    }

    static int run(Agent agent) throws Exception {
        Running running = new Running(BridgeApplication.newMain(), new CountDownLatch(1));
        if (!RUNNING.compareAndSet(null, running)) {
            throw new IllegalStateException("The agent is already running in this JVM");
        }
        try {
            if (STOP_FIRST.getAndSet(false)) {
                return 0;
            }
            return agent.run(running.main());
        } finally {
            RUNNING.compareAndSet(running, null);
            running.stopped().countDown();
        }
    }

    static void stop(Duration wait) throws InterruptedException {
        Running running = RUNNING.get();
        if (running == null) {
            STOP_FIRST.set(true);
            return;
        }
        LOG.info("Stop requested by the service host: stopping as on SIGTERM");
        running.main().completed();
        if (!running.stopped().await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("The agent has not stopped within {} s of the service host's stop", wait.toSeconds());
        }
    }
}
