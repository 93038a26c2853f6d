package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.action.ActionSettings;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.delivery.SpoolMXBean;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Service;
import org.apache.camel.StartupListener;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.ManagementAgent;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.SimpleEventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.JMException;
import javax.management.ObjectName;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What starts in which order, all of it here, top to bottom. The configurations ({@link BridgeConfiguration#all}) have
 * read and checked the settings and made every bean, each with its meters; the management server and the simulator
 * are bound, not started.
 * <ol>
 * <li>Services, before Camel starts anything: the temporary files interrupted writes left removed, the simulator
 * (when on) started and the agent pointed at the port it got, the drain port and the approval port opened. A port
 * that cannot be bound stops start-up (one line, exit 2); approval requests before the routes run get a JSON 503.
 * <li>Camel starts: the attempt deadlines and the outage log's summaries, then the routes (not the poll:
 * {@code autoStartup: false}).
 * <li>Once Camel has fully started (the sinks' lanes with it): {@link StartupRecovery} in plain Java (the spools
 * surveyed, actions resumed, the outbox dispatched), then the poll, through Camel's route controller, then
 * management: the spool's MXBean beside Camel's MBeans, and the management server, whose ~0.4 s would otherwise
 * delay the first poll.
 * </ol>
 * A stop: the attempts' deadlines shortened (below), the routes, then the management server, the approval server, the
 * action runner, the drain port, the Event Log writer, the outage log, the attempt deadlines and the simulator.
 */
public class StartOrder implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(StartOrder.class);

    /** The route Camel does not start with the others (routes/poll.yaml): only once recovery is done. */
    static final String POLL = "imds-poll";

    @Override
    public void configure(CamelContext context) throws Exception {
        Registry beans = context.getRegistry();
        BridgeSettings settings = beans.findSingleByType(BridgeSettings.class);

        // 1. Services.
        AtomicFiles.removeLeftovers(settings.stateDir());
        URI imds = imdsUrl(context, settings, beans.lookupByNameAndType(SimulatorConfiguration.BEAN_NAME,
                ImdsSimulator.class));
        LOG.info("Polling {} every {} ms (api-version {}), filter {}, state in {}", imds,
                settings.imds().pollInterval().toMillis(), settings.imds().apiVersion(), settings.filterResources(),
                settings.stateDir());
        AttemptDeadlines deadlines = beans.findSingleByType(AttemptDeadlines.class);
        OutageLog outageLog = beans.findSingleByType(OutageLog.class);
        context.addService(deadlines, true, true);
        context.addService(outageLog, true, true);
        context.addService(stopping(beans.findSingleByType(EventLogSink.class)::close), true, true);
        ActionSettings actions = settings.actions();
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
        Spool spool = beans.findSingleByType(Spool.class);
        stopGracefully(context, deadlines, spool, outageLog);

        // 2. Camel starts its services and the routes. 3. Then, once it has fully started:
        StartupRecovery recovery = new StartupRecovery(beans.findSingleByType(SpoolInventory.class),
                beans.findSingleByType(DeliveryMetrics.class), beans.findSingleByType(ActionRunner.class),
                beans.findSingleByType(TransitionJournal.class));
        context.addStartupListener(onceFullyStarted(() -> {
            recovery.run(context);
            context.getRouteController().startRoute(POLL);
            // The poll has started: health, metrics and the console come second.
            manage(context, spool);
            ManagementServer.startIfInstalled(context);
        }));
    }

    /**
     * The spool's MXBean among Camel's own MBeans, by Camel's management agent, which unregisters it when Camel stops;
     * none where Camel keeps no MBeans (without a console: only Hawtio reads them).
     */
    private static void manage(CamelContext context, Spool spool) throws JMException {
        ManagementAgent jmx = context.getManagementStrategy().getManagementAgent();
        if (jmx != null) {
            jmx.register(spool, new ObjectName(SpoolMXBean.OBJECT_NAME), true);
        }
    }

    /**
     * Where the poll goes: the configured IMDS, or the simulator, started first (and so stopped last), whose port the
     * routes' {@code bridge.imds.*} placeholders are given before Camel resolves them.
     */
    private static URI imdsUrl(CamelContext context, BridgeSettings settings, ImdsSimulator simulator) throws Exception {
        if (simulator == null) {
            return settings.imds().url();
        }
        startNow(context, new ServiceSupport() {
            @Override
            protected void doStart() {
                try {
                    simulator.start();
                } catch (IOException e) {
                    throw new BadConfigurationException("bridge.simulator.port", e.getMessage()
                            + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")"));
                }
            }

            @Override
            protected void doStop() {
                simulator.close();
            }
        });
        PropertiesComponent properties = context.getPropertiesComponent();
        properties.addOverrideProperty("bridge.imds.url", simulator.scheduledEventsUri().toString());
        properties.addOverrideProperty("bridge.imds.instance-url", simulator.instanceComputeUri().toString());
        properties.addOverrideProperty("bridge.imds.identity-url", simulator.identityTokenUri().toString());
        LOG.info("Built-in IMDS simulator listening on {} ({}x speed)", simulator.scheduledEventsUri(),
                settings.simulator().speed());
        return simulator.scheduledEventsUri();
    }

    /**
     * A graceful stop: attempts in flight get a third of the shutdown timeout, so a hung receiver cannot hold it; once
     * no lane sends any more, spool documents keep only their waiting messages and each sink's backlog is logged.
     */
    private static void stopGracefully(CamelContext context, AttemptDeadlines deadlines, Spool spool,
                                       OutageLog outageLog) {
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
