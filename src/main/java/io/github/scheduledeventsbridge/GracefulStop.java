package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.health.OutageLog;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.SimpleEventNotifierSupport;

import java.time.Duration;

/**
 * The two moments of a graceful stop. When the context begins to stop, attempts in flight get a third of the shutdown
 * timeout: a hung receiver cannot hold the stop, which also waits for each lane's queue to be left (up to a second per
 * lane). Once the routes stopped (no lane sends any more), spool documents keep only their messages still waiting and
 * one line per sink counts what stays in the spool.
 */
final class GracefulStop extends SimpleEventNotifierSupport {

    private final CamelContext context;
    private final AttemptDeadlines deadlines;
    private final Spool spool;
    private final OutageLog outageLog;

    GracefulStop(CamelContext context, AttemptDeadlines deadlines, Spool spool, OutageLog outageLog) {
        this.context = context;
        this.deadlines = deadlines;
        this.spool = spool;
        this.outageLog = outageLog;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof CamelEvent.CamelContextStoppingEvent) {
            var shutdown = context.getShutdownStrategy();
            deadlines.stopping(Duration.ofMillis(shutdown.getTimeUnit().toMillis(shutdown.getTimeout()) / 3));
        } else if (event instanceof CamelEvent.CamelContextRoutesStoppedEvent) {
            spool.keepOnlyWaitingDocuments();
            outageLog.reportBacklog();
        }
    }
}
