package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.action.ActionSettings;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Service;
import org.apache.camel.StartupListener;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.SimpleEventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.support.service.ServiceSupport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What starts in which order, all of it here. Camel stops the services in the reverse order, after the routes.
 * <ol>
 * <li>Configuring, in {@link BridgeConfiguration#all}'s order: the settings (with the simulator on, the simulator first:
 * the agent is pointed at its port), the management server bound (not started), each concern's beans with their
 * meters, then here the drain port and the approval port. A port that cannot be bound stops start-up before Camel
 * starts anything (one line, exit 2); approval requests before the routes run get a JSON 503.
 * <li>Camel starts: the attempt deadlines and the outage log's summaries, then the routes (not the poll:
 * {@code autoStartup: false}).
 * <li>Once Camel has fully started (the sinks' lanes with it): {@link StartupRecovery} (the spools surveyed, actions
 * resumed, the outbox dispatched), then the poll, through Camel's route controller, then the management server,
 * whose ~0.4 s would otherwise delay the first poll.
 * </ol>
 * A stop: the attempts' deadlines shortened (below), the routes, then the management server, the approval server, the
 * action runner, the drain port, the Event Log writer, the outage log, the attempt deadlines and the simulator.
 */
public class StartOrder implements CamelConfiguration {

    /** The route Camel does not start with the others (routes/poll.yaml): only once recovery is done. */
    static final String POLL = "imds-poll";

    @Override
    public void configure(CamelContext context) throws Exception {
        Registry beans = context.getRegistry();
        AttemptDeadlines deadlines = beans.findSingleByType(AttemptDeadlines.class);
        OutageLog outageLog = beans.findSingleByType(OutageLog.class);
        context.addService(deadlines, true, true);
        context.addService(outageLog, true, true);
        context.addService(stopping(beans.findSingleByType(EventLogSink.class)::close), true, true);

        ActionSettings actions = beans.findSingleByType(BridgeSettings.class).actions();
        if (actions.drainEnabled()) {
            DrainSignal drain = beans.findSingleByType(DrainSignal.class);
            startNow(context, drain.listen(actions));
            drain.registerMeters(context);
        }
        context.addService(stopping(beans.findSingleByType(ActionRunner.class)::stop), true, true);
        ApprovalServer approvals = beans.lookupByNameAndType(ApprovalServer.BEAN_NAME, ApprovalServer.class);
        if (approvals != null) {
            startNow(context, approvals.listen());
        }

        // A graceful stop: attempts in flight get a third of the shutdown timeout, so a hung receiver cannot hold it; once
        // no lane sends any more, spool documents keep only their waiting messages and each sink's backlog is logged.
        Spool spool = beans.findSingleByType(Spool.class);
        context.getManagementStrategy().addEventNotifier(new SimpleEventNotifierSupport() {
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
        });
        StartupRecovery recovery = new StartupRecovery(beans.findSingleByType(SpoolInventory.class),
                beans.findSingleByType(DeliveryMetrics.class), beans.findSingleByType(ActionRunner.class),
                beans.findSingleByType(TransitionJournal.class));
        context.addStartupListener(onceFullyStarted(() -> {
            recovery.run(context);
            context.getRouteController().startRoute(POLL);
            // The poll has started: health, metrics and the console come second.
            ManagementServer.startIfInstalled(context);
        }));
    }

    /** Once Camel has fully started: too early when it says "started", the routes are still starting then. */
    private static StartupListener onceFullyStarted(ThrowingRunnable then) {
        AtomicBoolean done = new AtomicBoolean();
        return new StartupListener() {
            @Override
            public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
                // Too early: routes are still starting.
            }

            @Override
            public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) throws Exception {
                // Camel passes alreadyStarted=true here even on the first start, hence the one-shot guard.
                if (done.compareAndSet(false, true)) {
                    then.run();
                }
            }
        };
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Started before Camel starts anything, so that a port that cannot be bound stops start-up; Camel stops it. */
    private static void startNow(CamelContext context, Service service) throws Exception {
        context.addService(service, true, false);
        ServiceHelper.startService(service);
    }

    /** A stop Camel calls in its order; not the bean itself as a service: a bean step would stop it with its route. */
    static Service stopping(AutoCloseable stop) {
        return new ServiceSupport() {
            @Override
            protected void doStop() throws Exception {
                stop.close();
            }
        };
    }
}
