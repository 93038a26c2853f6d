package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.ConfigKeys;
import io.github.scheduledeventsbridge.config.ConfigurationSources;
import io.github.scheduledeventsbridge.config.EnvironmentVariablesSource;
import io.github.scheduledeventsbridge.config.OpenSecretFiles;
import io.github.scheduledeventsbridge.config.SecretStrength;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.component.properties.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads and checks the {@code bridge.*} settings and composes the agent: each concern's configuration binds its beans
 * (a bean's parameters are the beans bound before it), {@link StartOrder} says what starts in which order.
 */
public class BridgeConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeConfiguration.class);
    private static final String STATE_DIR = "bridge.state.dir";
    /** Where the log goes once the settings are read: bound by {@link BridgeApplication#runAgent}. */
    static final String LOG_DESTINATION_BEAN = "logDestination";

    /**
     * The configurations Camel Main runs, in this order. Instances, not classes: Camel would post-process a class's
     * instance once when creating it and again when loading it, making every bean twice.
     */
    static List<CamelConfiguration> all() {
        return List.of(new BridgeConfiguration(), new ManagementConfiguration(), new PollConfiguration(),
                new DeliveryConfiguration(), new HealthConfiguration(), new ApprovalQueueConfiguration(), new ActionConfiguration(),
                new StartOrder());
    }

    @BindToRegistry
    final Clock clock = Clock.systemUTC();

    @BindToRegistry
    public BridgeSettings bridgeSettings(CamelContext context) throws Exception {
        LOG.info("scheduled-events-bridge {} (commit {}) starting", BridgeVersion.current(), BridgeVersion.commit());
        BridgeSettings settings = readSettings(context, (PropertiesComponent) context.getPropertiesComponent(),
                platform(context));
        AtomicFiles.removeLeftovers(settings.stateDir());
        return settings;
    }

    /** Tests bind their own "platform" (Windows on an in-memory file system); the agent runs on this JVM's. */
    static Platform platform(CamelContext context) {
        return Optional.ofNullable(context.getRegistry().lookupByNameAndType("platform", Platform.class))
                .orElseGet(Platform::current);
    }

    @Override
    public void configure(CamelContext context) {
        BridgeSettings settings = context.getRegistry().findSingleByType(BridgeSettings.class);
        rememberSecrets(settings);
        if (!settings.webhook().targets().isEmpty() && settings.webhook().secret().isEmpty()) {
            LOG.warn("bridge.webhook.secret is empty: webhooks are sent unsigned");
        } else if (!settings.webhook().secret().isEmpty()) {
            String weakness = SecretStrength.weakness(settings.webhook().secret(), SecretStrength.MIN_APPROVAL_SECRET_LENGTH);
            if (weakness != null) {
                LOG.warn("bridge.webhook.secret {}: receivers cannot trust the signatures", weakness);
            }
        }
        LOG.info("Polling {} every {} ms (api-version {}), filter {}, state in {}", settings.imds().url(),
                settings.imds().pollInterval().toMillis(), settings.imds().apiVersion(), settings.filterResources(),
                settings.stateDir());
    }

    /**
     * Values come from Camel's own property sources in the order of docs/configuration.md, so the checks read exactly
     * what the routes' placeholders will read.
     */
    static BridgeSettings readSettings(CamelContext context, PropertiesComponent properties, Platform platform)
            throws Exception {
        // Camel's own environment lookup would let BRIDGE_* beat -D; the source below keeps -D first.
        properties.setEnvironmentVariableMode(PropertiesComponent.ENVIRONMENT_VARIABLES_MODE_NEVER);
        properties.addPropertiesSource(new EnvironmentVariablesSource(platform.environment()));
        ConfigurationSources sources = new ConfigurationSources(properties, platform.environment());
        // The packaged ./data means the platform's default: on Windows not a ./data a service would find in System32.
        String packagedStateDir = ConfigKeys.packaged().defaultValue(STATE_DIR);
        Function<String, String> values = key -> {
            String value = properties.resolveProperty(key).orElse(null);
            return key.equals(STATE_DIR) && packagedStateDir.equals(value) ? platform.defaultStateDir() : value;
        };
        try {
            sources.refuseUnknownKeys();
            BridgeSettings settings = BridgeSettings.read(values, platform);
            AgentLifeLog.useSource(settings.eventLog().source());
            BridgeApplication.LogDestination destination = context.getRegistry()
                    .lookupByNameAndType(LOG_DESTINATION_BEAN, BridgeApplication.LogDestination.class);
            if (destination != null) {
                destination.use(settings.logFiles()); // the agent as the jar runs it; in-process tests keep their handlers
            }
            warnAboutOpenSecretFiles(sources, new SettingsReader(values, platform).string(OpenSecretFiles.ENVIRONMENT_FILE, ""));
            if (settings.eventLog().enabled() && context.getRegistry().lookupByName(EventLogSink.WRITER_BEAN) == null) {
                // Refused here, where the key's origin is known: only Windows has an Event Log (tests bind a writer).
                EventLogSink.requireWindows(platform);
            }
            if (!settings.simulator().enabled()) {
                return settings;
            }
            for (String key : List.of("bridge.imds.url", "bridge.imds.instance-url", "bridge.imds.identity-url")) {
                String origin = sources.origin(key);
                // A copy of the defaults (./config/application.properties in the repository) is not a choice.
                boolean explicit = !properties.resolveProperty(key).orElse("")
                        .equals(ConfigKeys.packaged().defaultValue(key));
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

    /** Said once, before anything starts; names files and keys, never a value. */
    private static void warnAboutOpenSecretFiles(ConfigurationSources sources, String environmentFile) {
        Map<Path, String> files = new LinkedHashMap<>(sources.filesHoldingSecrets());
        if (!environmentFile.isEmpty()) {
            files.putIfAbsent(Path.of(environmentFile).toAbsolutePath(), "its BRIDGE_* variables ("
                    + OpenSecretFiles.ENVIRONMENT_FILE + ")");
        }
        OpenSecretFiles.warnings(files).forEach(LOG::warn);
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

    /** Visible in Hawtio's JMX tree next to Camel's own MBeans; replaces a leftover from a previous context. */
    static void registerMBean(Object bean, String name) {
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
        ImdsSimulator simulator = new ImdsSimulator(options).start();
        context.addService(StartOrder.stopping(simulator::close), true, true); // added first: stopped last
        context.getRegistry().bind("imdsSimulator", simulator);
        LOG.info("Built-in IMDS simulator listening on {} ({}x speed)", simulator.scheduledEventsUri(),
                settings.simulator().speed());
        return Map.of("bridge.imds.url", simulator.scheduledEventsUri().toString(),
                "bridge.imds.instance-url", simulator.instanceComputeUri().toString(),
                "bridge.imds.identity-url", simulator.identityTokenUri().toString());
    }
}
