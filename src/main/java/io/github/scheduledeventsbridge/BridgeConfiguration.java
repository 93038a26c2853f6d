package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.ConfigKeys;
import io.github.scheduledeventsbridge.config.ConfigurationSources;
import io.github.scheduledeventsbridge.config.EnvironmentVariablesSource;
import io.github.scheduledeventsbridge.config.OpenSecretFiles;
import io.github.scheduledeventsbridge.config.SecretStrength;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.platform.Platform;
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
        return List.of(new BridgeConfiguration(), new SimulatorConfiguration(), new ManagementConfiguration(),
                new PollConfiguration(), new DeliveryConfiguration(), new HealthConfiguration(),
                new ApprovalQueueConfiguration(), new ActionConfiguration(),
                new StartOrder());
    }

    @BindToRegistry
    final Clock clock = Clock.systemUTC();

    @BindToRegistry
    public BridgeSettings bridgeSettings(CamelContext context) throws Exception {
        LOG.info("scheduled-events-bridge {} (commit {}) starting", BridgeVersion.current(), BridgeVersion.commit());
        return readSettings(context, (PropertiesComponent) context.getPropertiesComponent(), platform(context));
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
            if (settings.simulator().enabled()) {
                refuseImdsWithSimulator(properties, sources);
            }
            return settings;
        } catch (BadConfigurationException bad) {
            throw bad.from(sources.origin(bad.key()));
        }
    }

    /** The simulator is the IMDS ({@link StartOrder} points the agent at its port): another one is a contradiction. */
    private static void refuseImdsWithSimulator(PropertiesComponent properties, ConfigurationSources sources) {
        for (String key : List.of("bridge.imds.url", "bridge.imds.instance-url", "bridge.imds.identity-url")) {
            // A copy of the defaults (./config/application.properties in the repository) is not a choice.
            boolean explicit = !properties.resolveProperty(key).orElse("").equals(ConfigKeys.packaged().defaultValue(key));
            if (explicit) {
                throw new BadConfigurationException(key, "cannot be set together with bridge.simulator.enabled=true "
                        + "(the simulator is the IMDS); drop one of them").from(sources.origin(key));
            }
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
                settings.management().password(), settings.webhook().eventGridKey()).forEach(Redaction::secret);
        settings.webhook().targets().forEach(target -> Redaction.secretsOf(target.url()));
        for (String part : settings.eventHubs().connectionString().split(";")) {
            if (part.regionMatches(true, 0, "SharedAccessKey=", 0, "SharedAccessKey=".length())) {
                Redaction.secret(part.substring("SharedAccessKey=".length()));
            }
        }
    }
}
