package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.approval.ApprovalGate;
import io.github.scheduledeventsbridge.approval.ApprovalPolicy;
import io.github.scheduledeventsbridge.approval.AutoApprover;
import io.github.scheduledeventsbridge.approval.ImdsStartAnswer;
import io.github.scheduledeventsbridge.approval.ReplayCache;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.BridgeSettings;
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
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsBatch;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSink;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolContent;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.delivery.WebhookAddress;
import io.github.scheduledeventsbridge.delivery.WebhookSink;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.Readiness;
import io.github.scheduledeventsbridge.health.ReadinessChecks;
import io.github.scheduledeventsbridge.imds.ImdsResponse;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.transitions.TransitionLog;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.component.platform.http.main.MainHttpServer;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.jsse.KeyManagersParameters;
import org.apache.camel.support.jsse.KeyStoreParameters;
import org.apache.camel.support.jsse.SSLContextParameters;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
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

    @Override
    public void configure(CamelContext context) throws Exception {
        PropertiesComponent properties = context.getPropertiesComponent();
        // Camel would let BRIDGE_* environment variables beat -D; the agent looks them up itself, in the
        // documented order, and routes only read the checked values published below.
        if (properties instanceof org.apache.camel.component.properties.PropertiesComponent camelProperties) {
            camelProperties.setEnvironmentVariableMode(
                    org.apache.camel.component.properties.PropertiesComponent.ENVIRONMENT_VARIABLES_MODE_NEVER);
        }
        Map<String, String> forced = new java.util.HashMap<>();
        java.util.function.Function<String, String> lookup = key -> lookup(properties, forced, key);
        BridgeSettings settings = BridgeSettings.read(lookup);
        if (settings.simulatorEnabled()) {
            forced.putAll(startSimulator(context, settings));
            settings = BridgeSettings.read(lookup);
        }
        publishNormalizedValues(properties, settings);
        ManagementServer.install(context, settings.management());

        Clock clock = Clock.systemUTC();
        Registry registry = context.getRegistry();
        VmIdentity identity = new VmIdentity(clock);
        ResourceFilter resourceFilter = new ResourceFilter(ResourceFilter.mode(settings.filterResources()), identity);
        TransitionJournal journal = new TransitionJournal(settings.stateDir(), new TransitionDetector(),
                new CloudEventFactory(clock, identity), resourceFilter, clock);
        Spool spool = new Spool(settings.stateDir().resolve("spool"), clock);
        Map<String, String> legacySpoolIds = new HashMap<>();
        SinkRegistry sinks = new SinkRegistry(sinks(settings, identity, legacySpoolIds));
        DeadLetters deadLetters = new DeadLetters(spool, clock);
        SpoolInventory inventory = new SpoolInventory(spool.root(), sinks, deadLetters, legacySpoolIds);

        registry.bind("vmIdentity", identity);
        registry.bind("journal", journal);
        registry.bind("spool", spool);
        registerMBean(spool, "io.github.scheduledeventsbridge:type=Spool");
        registry.bind("sinkRegistry", sinks);
        registry.bind("dispatcher", new Dispatcher(sinks, spool));
        PollBackoff pollBackoff = new PollBackoff(clock, settings.pollInterval(), settings.imdsMaxBackoff());
        registry.bind("pollBackoff", pollBackoff);
        registry.bind("deliveryMetrics", new DeliveryMetrics(context, spool, sinks, inventory));
        registry.bind("transitionLog", new TransitionLog(context));
        ReadinessChecks.register(context, new Readiness(settings.healthImdsStaleAfter(), settings.healthSpoolThreshold(),
                settings.healthSinkStaleAfter()), pollBackoff, spool, sinks, deadLetters, clock);
        registry.bind("imdsResponse", new ImdsResponse());
        registry.bind("webhookSigner", new WebhookSigner(settings.webhookSecret(), clock));
        registry.bind("webhookAddress", new WebhookAddress());
        registry.bind("httpAnswer", new HttpAnswer(clock));
        registry.bind("spoolContent", new SpoolContent(sinks));
        registry.bind("deliveryRejections", new DeliveryRejections(settings.deliveryDeadLetterAfter(), clock));
        registry.bind("deadLetters", deadLetters);
        registry.bind("spoolInventory", inventory);
        registry.bind("webhookFormats", new WebhookFormats());
        registry.bind("emailComposer", new EmailComposer());
        registry.bind("eventHubsBatch", new EventHubsBatch());

        context.addStartupListener(new StartupRecovery());

        configureApprovals(context, settings, journal, clock);
        BridgeSettings.AutoApprovalSettings auto = settings.autoApproval();
        ApprovalPolicy policy = new ApprovalPolicy(auto.userInitiated(), auto.freezeMaxSeconds(), auto.eventTypes(),
                auto.leaderOnly());
        registry.bind("imdsStartAnswer", new ImdsStartAnswer());
        registry.bind("autoApprover", new AutoApprover(policy, auto.dryRun(), identity, journal, clock));
        if (policy.hasRules()) {
            LOG.info("Auto-approval{}: {}", auto.dryRun() ? " (DRY RUN: nothing is sent to IMDS)" : "", policy);
        }

        if (!settings.webhookTargets().isEmpty() && settings.webhookSecret().isEmpty()) {
            LOG.warn("bridge.webhook.secret is empty: webhooks are sent unsigned");
        }
        LOG.info("Polling {} every {} ms (api-version {}), filter {}, state in {}", settings.imdsUrl(),
                settings.pollInterval().toMillis(), settings.apiVersion(), settings.filterResources(), settings.stateDir());
    }

    static List<Sink> sinks(BridgeSettings settings, VmIdentity identity, Map<String, String> legacySpoolIds) {
        List<Sink> sinks = new ArrayList<>(WebhookSink.create(settings.webhookTargets(),
                filter(settings.webhookFilter(), identity), legacySpoolIds));
        if (settings.eventHubs().enabled()) {
            sinks.add(EventHubsSink.create(settings.eventHubs(), filter(settings.eventHubs().filter(), identity)));
        }
        if (settings.email().enabled()) {
            sinks.add(EmailSink.create(settings.email(), filter(settings.email().filter(), identity)));
        }
        return sinks;
    }

    private static SinkFilter filter(BridgeSettings.FilterSettings f, VmIdentity identity) {
        return new SinkFilter(f.transitions(), f.eventTypes(), f.ownOnly(), identity);
    }

    /**
     * The approval API only exists with a secret: without one, its routes are not created and the HTTP
     * server does not listen at all.
     */
    private static void configureApprovals(CamelContext context, BridgeSettings settings, TransitionJournal journal,
                                           Clock clock) {
        PropertiesComponent properties = context.getPropertiesComponent();
        boolean enabled = !settings.approvalSecret().isEmpty();
        properties.addOverrideProperty("bridge.approval.enabled", Boolean.toString(enabled));
        if (!enabled) {
            LOG.info("Remote approval API off (bridge.approval.secret is not set)");
            return;
        }
        // Camel Main reads camel.server.* before this runs, so the server is started here, by hand.
        MainHttpServer server = new MainHttpServer();
        server.setCamelContext(context);
        server.setPort(settings.approvalPort());
        server.setMaxBodySize((long) ApprovalGate.MAX_BODY_BYTES);
        server.setFileUploadEnabled(false);
        if (settings.approvalTls().enabled()) {
            server.setSslContextParameters(sslContext(settings.approvalTls()));
        }
        try {
            context.addService(server, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start the approval HTTP server on port " + settings.approvalPort(), e);
        }
        context.getRegistry().bind("approvalGate", new ApprovalGate(
                new WebhookSigner(settings.approvalSecret(), clock), clock,
                new ReplayCache(100_000, ApprovalGate.WINDOW.multipliedBy(2)), journal));
        LOG.info("Remote approval API on port {} ({}): POST /api/v1/approvals, GET /api/v1/events",
                settings.approvalPort(), settings.approvalTls());
    }

    private static SSLContextParameters sslContext(BridgeSettings.TlsSettings tls) {
        KeyStoreParameters keyStore = new KeyStoreParameters();
        keyStore.setResource("file:" + tls.keystore());
        keyStore.setPassword(tls.password());
        keyStore.setType(tls.type());
        KeyManagersParameters keyManagers = new KeyManagersParameters();
        keyManagers.setKeyStore(keyStore);
        keyManagers.setKeyPassword(tls.password());
        SSLContextParameters parameters = new SSLContextParameters();
        parameters.setKeyManagers(keyManagers);
        return parameters;
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

    /**
     * Precedence, highest first: values the agent forces (the simulator's URL), -D system properties,
     * BRIDGE_* environment variables (bridge.imds.url → BRIDGE_IMDS_URL), then the properties files.
     */
    static String lookup(PropertiesComponent properties, Map<String, String> forced, String key) {
        if (forced.containsKey(key)) {
            return forced.get(key);
        }
        String value = System.getProperty(key);
        if (value == null) {
            value = System.getenv(key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_'));
        }
        return value != null ? value : properties.resolveProperty(key).orElse(null);
    }

    /** The simulator runs inside this JVM and the agent is pointed at it (CONTRACT §1). */
    private static Map<String, String> startSimulator(CamelContext context, BridgeSettings settings) throws Exception {
        ImdsSimulator.Options options = ImdsSimulator.Options.defaults()
                .withPort(settings.simulatorPort())
                .withSpeed(settings.simulatorSpeed())
                .withLoop(settings.simulatorLoop());
        if (!settings.simulatorScenarios().isEmpty()) {
            try {
                options = options.withScenarios(settings.simulatorScenarios());
            } catch (IllegalArgumentException e) {
                throw new BadConfigurationException("bridge.simulator.scenarios", e.getMessage());
            }
        }
        ImdsSimulator simulator = new ImdsSimulator(options);
        simulator.start();
        context.addService(new ServiceSupport() {
            @Override
            protected void doStop() {
                simulator.close();
            }
        }, true, true);
        LOG.info("Built-in IMDS simulator listening on {} ({}x speed)", simulator.scheduledEventsUri(),
                settings.simulatorSpeed());
        return Map.of("bridge.imds.url", simulator.scheduledEventsUri().toString(),
                "bridge.imds.instance-url", simulator.instanceComputeUri().toString());
    }

    /** Routes read the checked values, so what they use is exactly what was validated. */
    private static void publishNormalizedValues(PropertiesComponent properties, BridgeSettings s) {
        properties.addOverrideProperty("bridge.imds.url", s.imdsUrl().toString());
        properties.addOverrideProperty("bridge.imds.api-version", s.apiVersion());
        properties.addOverrideProperty("bridge.imds.poll-interval", Long.toString(s.pollInterval().toMillis()));
        properties.addOverrideProperty("bridge.imds.timeout", Long.toString(s.imdsTimeout().toMillis()));
        properties.addOverrideProperty("bridge.imds.first-call-timeout", Long.toString(s.imdsFirstCallTimeout().toMillis()));
        properties.addOverrideProperty("bridge.imds.instance-url", s.instanceUrl().toString());
        properties.addOverrideProperty("bridge.imds.instance-api-version", s.instanceApiVersion());
        properties.addOverrideProperty("bridge.delivery.initial-backoff", Long.toString(s.deliveryInitialBackoff().toMillis()));
        properties.addOverrideProperty("bridge.delivery.max-backoff", Long.toString(s.deliveryMaxBackoff().toMillis()));
        properties.addOverrideProperty("bridge.delivery.dead-letter-after", Long.toString(s.deliveryDeadLetterAfter().toMillis()));
    }
}
