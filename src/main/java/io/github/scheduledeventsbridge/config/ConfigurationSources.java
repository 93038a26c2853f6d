package io.github.scheduledeventsbridge.config;

import org.apache.camel.component.properties.LocationPropertiesSource;
import org.apache.camel.component.properties.PropertiesComponent;
import org.apache.camel.spi.LoadablePropertiesSource;
import org.apache.camel.spi.PropertiesResolvedValue;
import org.apache.camel.spi.PropertiesSource;

import java.util.Map;
import java.util.Properties;

/**
 * Where each {@code bridge.*} value comes from, in Camel's own lookup order (-D system properties, values
 * set by an embedding program, {@code BRIDGE_*} variables, the files): to name the source in every refusal,
 * and to refuse keys nobody knows before they are silently ignored.
 */
public final class ConfigurationSources {

    private static final String EMBEDDED = "a value set by the program that embeds the agent";

    private final PropertiesComponent properties;
    private final Map<String, String> environment;
    private final ConfigKeys keys = ConfigKeys.packaged();

    public ConfigurationSources(PropertiesComponent properties, Map<String, String> environment) {
        this.properties = properties;
        this.environment = environment;
    }

    /** A human description of where the value in effect for {@code key} was set (Camel records each lookup's source). */
    public String origin(String key) {
        String source = properties.getResolvedValue(key).map(PropertiesResolvedValue::source).orElse("");
        if (source.equals("SYS")) {
            return "-D" + key;
        }
        if (source.equals(EnvironmentVariablesSource.NAME)) {
            return "environment variable " + ConfigKeys.environmentName(key);
        }
        if (source.startsWith("file:")) {
            return "file " + source.substring("file:".length());
        }
        // Camel Main's override and initial properties are not sources: their values come from the embedding program.
        return source.startsWith("classpath:") ? "the packaged default" : EMBEDDED;
    }

    /** A typo must not be a silently ignored setting: every unknown key stops start-up. */
    public void refuseUnknownKeys() {
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("bridge.") && !keys.isKnown(name)) {
                throw unknown(name, "-D" + name, false);
            }
        }
        for (String variable : environment.keySet()) {
            if (variable.startsWith("BRIDGE_") && keys.byEnvironmentName(variable).isEmpty()) {
                throw unknown(variable, "environment variable " + variable, true);
            }
        }
        Properties overrides = properties.getOverrideProperties();
        if (overrides != null) {
            for (String name : overrides.stringPropertyNames()) {
                if (name.startsWith("bridge.") && !keys.isKnown(name)) {
                    throw unknown(name, EMBEDDED, false);
                }
            }
        }
        for (PropertiesSource source : properties.getPropertiesSources()) {
            if (source instanceof LocationPropertiesSource location && source instanceof LoadablePropertiesSource loadable
                    && !"classpath".equals(location.getLocation().getResolver())) {
                String where = "file " + location.getLocation().getPath();
                Properties file = loadable.loadProperties(k -> k.startsWith("bridge."));
                for (String name : file.stringPropertyNames()) {
                    if (!keys.isKnown(name)) {
                        throw unknown(name, where, false);
                    }
                    if (readBeforeFiles(name) && !file.getProperty(name).strip().equals(keys.defaultValue(name))) {
                        throw new BadConfigurationException(name, "is read before any file: set it as -D" + name
                                + " or " + ConfigKeys.environmentName(name)).from(where);
                    }
                }
            }
        }
    }

    private static boolean readBeforeFiles(String name) {
        return name.equals(ConfigKeys.CONFIG_FILE) || name.equals(ConfigKeys.LOG_FORMAT);
    }

    private BadConfigurationException unknown(String name, String where, boolean environmentName) {
        String hint = keys.nearest(name, environmentName).map(k -> "; did you mean " + k + "?")
                .orElse("; java -jar scheduled-events-bridge.jar --help lists every key");
        return new BadConfigurationException(name, "is not a known key" + hint).from(where);
    }
}
