package io.github.scheduledeventsbridge.testing;

import io.github.scheduledeventsbridge.BridgeApplication;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/** The agent as procrun runs it: {@link BridgeApplication#start} on a thread of its own, which returns at the stop. */
public final class ServiceHostThread {

    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ServiceHostThread() {
        thread = new Thread(() -> {
            try {
                BridgeApplication.start(new String[0]);
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "service-host-start");
    }

    public static ServiceHostThread start() {
        ServiceHostThread host = new ServiceHostThread();
        host.thread.start();
        return host;
    }

    /** procrun's stop ({@code --StopMethod=stop}): returns once the agent has stopped, or after 30 s. */
    public void stop() throws InterruptedException {
        BridgeApplication.stop(new String[]{"30"});
    }

    /** Waits up to 10 s for start to return; what it threw, or null. */
    public Throwable join() throws InterruptedException {
        thread.join(Duration.ofSeconds(10).toMillis());
        return failure.get();
    }

    public boolean isAlive() {
        return thread.isAlive();
    }
}
