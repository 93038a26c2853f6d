package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.action.ActionSettings;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.health.OutageLog;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Service;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.SimpleEventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.support.service.ServiceSupport;

import java.time.Duration;

/**
 * What starts in which order. Camel stops the services in the reverse order, after the routes.
 * <ol>
 * <li>Configuring, in {@link BridgeApplication#newMain}'s order: the settings read and checked (with the simulator on,
 * the simulator first, since the agent is pointed at the port it got), then each concern's beans.
 * <li>Still configuring, here: the drain port, then the approval port. A port that cannot be bound stops start-up
 * before Camel starts anything, with one line and exit 2; approval requests that arrive before the routes run get
 * a JSON 503.
 * <li>Camel starts: the attempt deadlines and the outage log's summaries, then the routes (the poll does not start on
 * its own).
 * <li>Once Camel has fully started ({@link StartupRecovery}): start-up recovery, which starts the poll; then the
 * management server, whose ~0.4 s would otherwise delay the first poll.
 * </ol>
 * A stop: {@link GracefulStop}, the routes, then the management server, the approval server, the action runner, the
 * drain port, the Event Log writer, the outage log, the attempt deadlines and the simulator.
 */
public class StartOrder implements CamelConfiguration {

    @Override
    public void configure(CamelContext context) throws Exception {
        Registry beans = context.getRegistry();
        AttemptDeadlines deadlines = beans.findSingleByType(AttemptDeadlines.class);
        OutageLog outageLog = beans.findSingleByType(OutageLog.class);
        context.addService(deadlines, true, true);
        context.addService(outageLog, true, true);
        context.addService(Lifecycle.stopping(beans.findSingleByType(EventLogSink.class)::close), true, true);

        ActionSettings actions = beans.findSingleByType(BridgeSettings.class).actions();
        DrainSignal drain = beans.findSingleByType(DrainSignal.class);
        if (actions.drainEnabled()) {
            startNow(context, new Lifecycle(() -> drain.start(actions.drainHost(), actions.drainPort(),
                    actions.drainMaxConnections(), actions.drainRequestTimeout()), drain::close));
        }
        context.addService(Lifecycle.stopping(beans.findSingleByType(ActionRunner.class)::stop), true, true);
        ApprovalServer approvals = beans.lookupByNameAndType(ApprovalServer.BEAN_NAME, ApprovalServer.class);
        if (approvals != null) {
            startNow(context, approvals);
        }

        context.getManagementStrategy().addEventNotifier(
                new GracefulStop(context, deadlines, beans.findSingleByType(Spool.class), outageLog));
        context.addStartupListener(new StartupRecovery());
    }

    /** Started before Camel starts anything, so that a port that cannot be bound stops start-up; Camel stops it. */
    private static void startNow(CamelContext context, Service service) throws Exception {
        ServiceHelper.startService(service);
        try {
            context.addService(service, true, false);
        } catch (Exception e) {
            service.stop();
            throw e;
        }
    }

    /**
     * A start and a stop that Camel calls in its order. The beans the routes call are not made Camel services
     * themselves: a bean step starts and stops a service bean with its route, and these must outlive every route.
     */
    static final class Lifecycle extends ServiceSupport {

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

    /**
     * The two moments of a graceful stop. When the context begins to stop, attempts in flight get a third of the
     * shutdown timeout: a hung receiver cannot hold the stop, which also waits for each lane's queue to be left (up to
     * a second per lane). Once the routes stopped (no lane sends any more), spool documents keep only their messages
     * still waiting and one line per sink counts what stays in the spool.
     */
    static final class GracefulStop extends SimpleEventNotifierSupport {

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
}
