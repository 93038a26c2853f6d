package io.github.scheduledeventsbridge;

import org.apache.camel.support.service.ServiceSupport;

/**
 * A start and a stop that Camel calls in its order ({@link StartOrder}). The beans the routes call are not made
 * Camel services themselves: a bean step starts and stops a service bean with its route, and these must outlive
 * every route.
 */
final class Lifecycle extends ServiceSupport {

    interface Step {
        void run() throws Exception;
    }

    private final Step start;
    private final Step stop;

    Lifecycle(Step start, Step stop) {
        this.start = start;
        this.stop = stop;
    }

    static Lifecycle stopping(Step stop) {
        return new Lifecycle(() -> { }, stop);
    }

    @Override
    protected void doStart() throws Exception {
        start.run();
    }

    @Override
    protected void doStop() throws Exception {
        stop.run();
    }
}
