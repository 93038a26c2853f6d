package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.approval.ApprovalAudit;
import io.github.scheduledeventsbridge.approval.ApprovalGate;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.approval.ApprovalPolicy;
import io.github.scheduledeventsbridge.approval.AutoApprover;
import io.github.scheduledeventsbridge.approval.ImdsStartAnswer;
import io.github.scheduledeventsbridge.approval.ReplayCache;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.BridgeSettings;
import io.github.scheduledeventsbridge.config.ConfigurationSources;
import io.github.scheduledeventsbridge.config.EnvironmentVariablesSource;
import io.github.scheduledeventsbridge.config.SecretStrength;
import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.BoundedHttpClient;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.DeliveryRejections;
import io.github.scheduledeventsbridge.delivery.Dispatcher;
import io.github.scheduledeventsbridge.delivery.HttpAnswer;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkFilter;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.WebhookFormats;
import io.github.scheduledeventsbridge.delivery.email.EmailComposer;
import io.github.scheduledeventsbridge.delivery.email.EmailSink;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogWriter;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSink;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolContent;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.delivery.WebhookAddress;
import io.github.scheduledeventsbridge.delivery.WebhookSink;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.DeliveryOutcome;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.health.PollMetrics;
import io.github.scheduledeventsbridge.health.Readiness;
import io.github.scheduledeventsbridge.health.ReadinessChecks;
import io.github.scheduledeventsbridge.imds.ImdsResponse;
import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.health.StorageHealth;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.state.AtomicFiles;
import io.github.scheduledeventsbridge.state.BootTime;
import io.github.scheduledeventsbridge.state.ObservationWatch;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.transitions.TransitionLog;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and checks the {@code bridge.*} settings, then wires the beans the YAML routes refer to by name.
 * Nothing here decides anything; the decisions live in the beans.
 */
public class BridgeConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeConfiguration.class);
    private static final String STATE_DIR = "bridge.state.dir";

    @Override
    public void configure(CamelContext context) throws Exception {
        LOG.info("scheduled-events-bridge {} (commit {}) starting", BridgeVersion.current(), BridgeVersion.commit());
        PropertiesComponent properties = context.getPropertiesComponent();
        // Tests bind their own "platform" (Windows on an in-memory file system); the agent runs on this JVM's.
        Platform platform = java.util.Optional.ofNullable(context.getRegistry().lookupByNameAndType("platform", Platform.class))
                .orElseGet(Platform::current);
        BridgeSettings settings = readSettings(context, (org.apache.camel.component.properties.PropertiesComponent) properties,
                platform);
        AtomicFiles.removeLeftovers(settings.stateDir());
        ManagementServer.install(context, settings.management());
        rememberSecrets(settings);

        Clock clock = Clock.systemUTC();
        Registry registry = context.getRegistry();
        // The last known identity (state dir) answers for this VM until IMDS instance metadata does.
        VmIdentity identity = new VmIdentity(clock, settings.stateDir());
        ResourceFilter resourceFilter = new ResourceFilter(ResourceFilter.mode(settings.filterResources()), identity);
        StorageHealth storage = new StorageHealth(clock);
        // Tests bind their own "bootTime"; the agent asks the platform.
        BootTime bootTime = java.util.Optional.ofNullable(context.getRegistry().lookupByNameAndType("bootTime", BootTime.class))
                .orElseGet(platform::bootTime);
        TransitionJournal journal = new TransitionJournal(settings.stateDir(), new TransitionDetector(),
                new CloudEventFactory(clock, identity), resourceFilter, clock,
                new ObservationWatch(ObservationWatch.maxGap(settings.imds().pollInterval()), bootTime, clock), storage);
        Spool spool = new Spool(settings.stateDir().resolve("spool"), clock);
        Map<String, String> legacySpoolIds = new HashMap<>();
        SinkRegistry sinks = new SinkRegistry(sinks(settings, identity, legacySpoolIds));
        DeadLetters deadLetters = new DeadLetters(spool, clock);
        SpoolInventory inventory = new SpoolInventory(spool.root(), sinks, deadLetters, legacySpoolIds);
        // One deadline per delivery attempt, and peers' answers read only so far (every sink).
        AttemptDeadlines deadlines = new AttemptDeadlines(settings.delivery().attemptTimeout());
        context.addService(deadlines, true, true);
        registry.bind("boundedHttpClient", new BoundedHttpClient(context, deadlines));
        // Sink secrets go to the components, never into endpoint URIs (route dumps, Hawtio).
        EmailSink.configureComponent(context, settings.email(), deadlines);
        EventHubsSink.configureComponent(context, settings.eventHubs(), deadlines.timeout());

        registry.bind("vmIdentity", identity);
        registry.bind("journal", journal);
        registry.bind("spool", spool);
        registerMBean(spool, "io.github.scheduledeventsbridge:type=Spool");
        registry.bind("sinkRegistry", sinks);
        registry.bind("dispatcher", new Dispatcher(sinks, spool, storage));
        PollBackoff pollBackoff = new PollBackoff(clock, settings.imds().pollInterval(), settings.imds().maxBackoff());
        registry.bind("pollBackoff", pollBackoff);
        OutageLog outageLog = new OutageLog(OutageLog.Settings.read(new io.github.scheduledeventsbridge.config.SettingsReader(
                key -> properties.resolveProperty(key).orElse(null))), sinks, spool, pollBackoff, clock).watching(storage);
        registry.bind("outageLog", outageLog);
        // Its summaries tick with the context; once the routes stopped, one line per sink counts what stays in the spool,
        // and spool documents keep only their messages still waiting (a graceful stop: no lane sends any more).
        context.addService(outageLog, true, true);
        context.getManagementStrategy().addEventNotifier(new org.apache.camel.support.SimpleEventNotifierSupport() {
            @Override
            public void notify(org.apache.camel.spi.CamelEvent event) {
                if (event instanceof org.apache.camel.spi.CamelEvent.CamelContextStoppingEvent) {
                    // A third of the shutdown timeout for attempts in flight: a hung receiver cannot hold the stop,
                    // which also waits for each lane's queue to be left (up to a second per lane).
                    deadlines.stopping(Duration.ofMillis(context.getShutdownStrategy().getTimeUnit()
                            .toMillis(context.getShutdownStrategy().getTimeout()) / 3));
                } else if (event instanceof org.apache.camel.spi.CamelEvent.CamelContextRoutesStoppedEvent) {
                    spool.keepOnlyWaitingDocuments();
                    outageLog.reportBacklog();
                }
            }
        });
        DeliveryMetrics deliveryMetrics = new DeliveryMetrics(context, spool, sinks, inventory).watching(pollBackoff);
        registry.bind("deliveryMetrics", deliveryMetrics);
        registry.bind("deliveryOutcome", new DeliveryOutcome(spool, deadLetters, outageLog, deliveryMetrics));
        // The spool MXBean (Hawtio) names sinks as people do, not by their hash.
        spool.nameSinks(sinks::label);
        registry.bind("transitionLog", new TransitionLog(context));
        ReadinessChecks.register(context, new Readiness(settings.health().imdsStaleAfter(), settings.health().spoolThreshold(),
                settings.health().sinkStaleAfter()), pollBackoff, spool, sinks, deadLetters, clock, storage);
        registry.bind("imdsResponse", new ImdsResponse(settings.imds().maxDocumentSize()));
        registry.bind("pollMetrics", new PollMetrics(context));
        registry.bind("webhookSigner", new WebhookSigner(settings.webhook().secret(), clock));
        registry.bind("webhookAddress", new WebhookAddress());
        registry.bind("httpAnswer", new HttpAnswer(clock));
        registry.bind("spoolContent", new SpoolContent());
        registry.bind("deliveryRejections", new DeliveryRejections(settings.delivery().deadLetterAfter(), clock));
        registry.bind("deadLetters", deadLetters);
        registry.bind("spoolInventory", inventory);
        registry.bind("webhookFormats", new WebhookFormats());
        registry.bind("emailComposer", new EmailComposer());
        registry.bind("eventHubsBatch", new EventHubsBatch());
        configureEventLog(context, settings);

        context.addStartupListener(new StartupRecovery());
        ReadinessChecks.registerIdentity(context, identity);
        configureActions(context, settings.actions(), identity, journal, clock, settings.stateDir());

        configureApprovals(context, settings, journal, clock);
        io.github.scheduledeventsbridge.approval.ApprovalSettings.Auto auto = settings.approval().auto();
        ApprovalPolicy policy = new ApprovalPolicy(auto.userInitiated(), auto.freezeMaxSeconds(), auto.eventTypes(),
                auto.leaderOnly());
        registry.bind("imdsStartAnswer", new ImdsStartAnswer());
        registry.bind("autoApprover", new AutoApprover(policy, auto.dryRun(), identity, journal, clock,
                new io.github.scheduledeventsbridge.approval.WithheldApprovals(context)));
        if (policy.hasRules()) {
            LOG.info("Auto-approval{}: {}", auto.dryRun() ? " (DRY RUN: nothing is sent to IMDS)" : "", policy);
        }

        if (!settings.webhook().targets().isEmpty() && settings.webhook().secret().isEmpty()) {
            LOG.warn("bridge.webhook.secret is empty: webhooks are sent unsigned");
        } else if (!settings.webhook().secret().isEmpty()) {
            String weakness = SecretStrength.weakness(settings.webhook().secret(), SecretStrength.MIN_APPROVAL_SECRET_LENGTH);
            if (weakness != null) {
                LOG.warn("bridge.webhook.secret {}: receivers cannot trust the signatures", weakness);
            }
        }
        LOG.info("Polling {} every {} ms (api-version {}), filter {}, state in {}", settings.imds().url(),
                settings.imds().pollInterval().toMillis(), settings.imds().apiVersion(), settings.filterResources(), settings.stateDir());
    }

    /**
     * Values come from Camel's own property sources, in the documented order: -D system properties (Camel
     * looks those up first), {@code BRIDGE_*} environment variables (a source placed before the files), the
     * file named by {@code bridge.config}, {@code ./config/application.properties}, the packaged defaults.
     * The checks read exactly what the routes' placeholders will read; nothing is re-published.
     */
    static BridgeSettings readSettings(CamelContext context,
                                       org.apache.camel.component.properties.PropertiesComponent properties,
                                       Platform platform) throws Exception {
        // Camel's own environment lookup would let BRIDGE_* beat -D; the source below keeps -D first.
        properties.setEnvironmentVariableMode(
                org.apache.camel.component.properties.PropertiesComponent.ENVIRONMENT_VARIABLES_MODE_NEVER);
        properties.addPropertiesSource(new EnvironmentVariablesSource(platform.environment()));
        ConfigurationSources sources = new ConfigurationSources(properties, platform.environment());
        // The packaged state directory (./data, also in the repository's copy of the defaults) is the platform's default:
        // on Windows %ProgramData%\scheduled-events-bridge, not a ./data that a service would find in System32.
        String packagedStateDir = io.github.scheduledeventsbridge.config.ConfigKeys.packaged().defaultValue(STATE_DIR);
        java.util.function.Function<String, String> values = key -> {
            String value = properties.resolveProperty(key).orElse(null);
            return key.equals(STATE_DIR) && packagedStateDir.equals(value) ? platform.defaultStateDir() : value;
        };
        try {
            sources.refuseUnknownKeys();
            BridgeSettings settings = BridgeSettings.read(values, platform);
            if (settings.eventLog().enabled() && context.getRegistry().lookupByName(EventLogSink.WRITER_BEAN) == null) {
                // Refused here, where the key's origin is known: only Windows has an Event Log.
                context.getRegistry().bind(EventLogSink.WRITER_BEAN, EventLogSink.systemWriter(settings.eventLog()));
            }
            if (!settings.simulator().enabled()) {
                return settings;
            }
            for (String key : List.of("bridge.imds.url", "bridge.imds.instance-url")) {
                String origin = sources.origin(key);
                // A copy of the defaults (./config/application.properties in the repository) is not a choice.
                boolean explicit = !properties.resolveProperty(key).orElse("")
                        .equals(io.github.scheduledeventsbridge.config.ConfigKeys.packaged().defaultValue(key));
                if (explicit) {
                    throw new BadConfigurationException(key, "cannot be set together with bridge.simulator.enabled=true "
                            + "(the simulator is the IMDS); drop one of them").from(origin);
                }
            }
            startSimulator(context, settings).forEach(properties::addOverrideProperty);
            return BridgeSettings.read(values, platform);
        } catch (BadConfigurationException bad) {
            throw bad.from(sources.origin(bad.key()));
        }
    }

    /** What a peer's answer must never show in a log or a dead letter's reason, should it echo it back. */
    private static void rememberSecrets(BridgeSettings settings) {
        List.of(settings.webhook().secret(), settings.approval().secret(), settings.email().password(),
                settings.management().password()).forEach(Redaction::secret);
        settings.webhook().targets().forEach(target -> Redaction.secretsOf(target.url()));
        for (String part : settings.eventHubs().connectionString().split(";")) {
            if (part.regionMatches(true, 0, "SharedAccessKey=", 0, "SharedAccessKey=".length())) {
                Redaction.secret(part.substring("SharedAccessKey=".length()));
            }
        }
    }

    static List<Sink> sinks(BridgeSettings settings, VmIdentity identity, Map<String, String> legacySpoolIds) {
        List<Sink> sinks = new ArrayList<>(WebhookSink.create(settings.webhook().targets(),
                filter(settings.webhook().filter(), identity), legacySpoolIds, settings.webhook().concurrency()));
        if (settings.eventHubs().enabled()) {
            sinks.add(EventHubsSink.create(settings.eventHubs(), filter(settings.eventHubs().filter(), identity)));
        }
        if (settings.email().enabled()) {
            sinks.add(EmailSink.create(settings.email(), filter(settings.email().filter(), identity)));
        }
        if (settings.eventLog().enabled()) {
            sinks.add(EventLogSink.create(settings.eventLog(), filter(settings.eventLog().filter(), identity)));
        }
        return sinks;
    }

    /**
     * The Event Log sink's attempt bean (bound always, as routes/eventlog-sink.yaml names it), writing through the
     * writer chosen with the settings (readSettings); without the sink no lane ever calls it.
     */
    private static void configureEventLog(CamelContext context, BridgeSettings settings) throws Exception {
        EventLogWriter writer = settings.eventLog().enabled()
                ? context.getRegistry().lookupByNameAndType(EventLogSink.WRITER_BEAN, EventLogWriter.class) : null;
        EventLogSink sink = new EventLogSink(writer);
        context.getRegistry().bind("eventLogSink", sink);
        if (writer == null) {
            return;
        }
        context.addService(new ServiceSupport() {
            @Override
            protected void doStop() {
                sink.close();
            }
        }, true, true);
    }

    private static SinkFilter filter(io.github.scheduledeventsbridge.delivery.FilterSettings f, VmIdentity identity) {
        return new SinkFilter(f.transitions(), f.eventTypes(), f.ownOnly(), identity);
    }

    /**
     * The approval API only exists with a secret: without one, its routes are not created and the HTTP
     * server does not listen at all.
     */
    private static void configureApprovals(CamelContext context, BridgeSettings settings, TransitionJournal journal,
                                           Clock clock) {
        PropertiesComponent properties = context.getPropertiesComponent();
        boolean enabled = !settings.approval().secret().isEmpty();
        properties.addOverrideProperty("bridge.approval.enabled", Boolean.toString(enabled));
        if (!enabled) {
            LOG.info("Remote approval API off (bridge.approval.secret is not set)");
            return;
        }
        // The agent's own HTTP port (http.HttpPort) rather than platform-http: see ApprovalServer for the limits it keeps.
        ApprovalAudit audit = new ApprovalAudit(clock, 20);
        context.getRegistry().bind("approvalGate", new ApprovalGate(
                new WebhookSigner(settings.approval().secret(), clock), clock,
                ReplayCache.inStateDir(settings.stateDir(), 10_000, ApprovalGate.WINDOW), journal, audit));
        ApprovalServer server = new ApprovalServer(context, settings.approval().listener(), settings.approval().tls(),
                settings.imds().timeout().toMillis(), audit);
        context.getRegistry().bind(ApprovalServer.BEAN_NAME, server);
        // Bound now, before any route starts: a port that cannot be bound stops start-up here with one line and
        // exit 2 (BadConfigurationException), rather than after polling began. Requests that arrive before the
        // routes run get a JSON 503. The context stops it.
        server.start();
        try {
            context.addService(server, true, false);
        } catch (Exception e) {
            server.stop();
            throw new IllegalStateException("Cannot add the approval server", e);
        }
    }

    /** docs/actions-and-drain.md: the prepare/recover runner (always bound; idle without commands) and the drain signal. */
    private static void configureActions(CamelContext context, io.github.scheduledeventsbridge.action.ActionSettings actions,
                                         VmIdentity identity, TransitionJournal journal, Clock clock,
                                         java.nio.file.Path stateDir) throws Exception {
        var runner = new io.github.scheduledeventsbridge.action.ActionRunner(actions,
                new io.github.scheduledeventsbridge.action.ActionState(stateDir), identity, journal, context, clock);
        context.getRegistry().bind("actionRunner", runner);
        var drain = new io.github.scheduledeventsbridge.action.DrainSignal(journal, identity, actions.drainLeadTime(), clock);
        context.getRegistry().bind("drainSignal", drain);
        if (actions.any()) {
            LOG.info("Actions on this VM: {}", runner.describe());
        }
        if (actions.drainEnabled()) {
            // Bound before any route starts: a port that cannot be bound stops start-up (exit 2, one line).
            drain.start(actions.drainHost(), actions.drainPort(), actions.drainMaxConnections(),
                    actions.drainRequestTimeout());
        }
        context.addService(new ServiceSupport() {
            @Override
            protected void doStop() {
                runner.stop();
                drain.close();
            }
        }, true, true);
    }

    /** Visible in Hawtio's JMX tree next to Camel's own MBeans; replaces a leftover from a previous context. */
    private static void registerMBean(Object bean, String name) {
        try {
            javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            javax.management.ObjectName objectName = new javax.management.ObjectName(name);
            if (server.isRegistered(objectName)) {
                server.unregisterMBean(objectName);
            }
            server.registerMBean(bean, objectName);
        } catch (javax.management.JMException e) {
            LOG.warn("Cannot register {} in JMX: {}", name, e.getMessage());
        }
    }

    /** The simulator runs inside this JVM and the agent is pointed at it (docs/getting-started.md). */
    private static Map<String, String> startSimulator(CamelContext context, BridgeSettings settings) throws Exception {
        ImdsSimulator.Options options = ImdsSimulator.Options.defaults()
                .withPort(settings.simulator().port())
                .withSpeed(settings.simulator().speed())
                .withLoop(settings.simulator().loop());
        if (!settings.simulator().scenarios().isEmpty()) {
            try {
                options = options.withScenarios(settings.simulator().scenarios());
            } catch (IllegalArgumentException e) {
                throw new BadConfigurationException("bridge.simulator.scenarios", e.getMessage());
            }
        }
        ImdsSimulator simulator = new ImdsSimulator(options);
        simulator.start();
        context.getRegistry().bind("imdsSimulator", simulator);
        context.addService(new ServiceSupport() {
            @Override
            protected void doStop() {
                simulator.close();
            }
        }, true, true);
        LOG.info("Built-in IMDS simulator listening on {} ({}x speed)", simulator.scheduledEventsUri(),
                settings.simulator().speed());
        return Map.of("bridge.imds.url", simulator.scheduledEventsUri().toString(),
                "bridge.imds.instance-url", simulator.instanceComputeUri().toString());
    }
}
