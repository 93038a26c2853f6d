package io.github.scheduledeventsbridge.config;

import org.apache.camel.component.properties.LocationPropertiesSource;
import org.apache.camel.component.properties.PropertiesComponent;
import org.apache.camel.spi.LoadablePropertiesSource;
import org.apache.camel.spi.PropertiesResolvedValue;
import org.apache.camel.spi.PropertiesSource;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Where each {@code bridge.*} value comes from: to name it in every refusal, and to refuse unknown keys. */
public record ConfigurationSources(PropertiesComponent properties, Map<String, String> environment) {

    private static final String EMBEDDED = "a value set by the program that embeds the agent";
    private static final ConfigKeys KEYS = ConfigKeys.packaged();

    /** Not the environment: it holds secrets (BRIDGE_APPROVAL_SECRET…). */
    @Override
    public String toString() {
        return "ConfigurationSources";
    }

    /** A human description of where the value in effect for {@code key} was set (Camel records each lookup's source). */
    public String origin(String key) {
        String source = properties.getResolvedValue(key).map(PropertiesResolvedValue::source).orElse("");
        // Camel Main's override and initial properties are not sources: their values come from the embedding program.
        return source.equals("SYS") ? "-D" + key
                : source.equals(EnvironmentVariablesSource.NAME)
                ? "environment variable " + ConfigKeys.environmentName(key)
                : source.startsWith("file:") ? "file " + source.substring("file:".length())
                : source.startsWith("classpath:") ? "the packaged default" : EMBEDDED;
    }

    /** A typo must not be a silently ignored setting: every unknown key stops start-up. */
    public void refuseUnknownKeys() {
        refuseUnknown(System.getProperties(), name -> "-D" + name);
        for (String variable : environment.keySet()) {
            if (variable.startsWith("BRIDGE_") && KEYS.byEnvironmentName(variable).isEmpty()) {
                throw unknown(variable, "environment variable " + variable, true);
            }
        }
        refuseUnknown(properties.getOverrideProperties(), name -> EMBEDDED);
        for (PropertiesSource source : properties.getPropertiesSources()) {
            if (source instanceof LocationPropertiesSource location && source instanceof LoadablePropertiesSource loadable
                    && !"classpath".equals(location.getLocation().getResolver())) {
                String where = "file " + location.getLocation().getPath();
                Properties file = loadable.loadProperties(k -> k.startsWith("bridge."));
                refuseUnknown(file, name -> where);
                for (String early : List.of(ConfigKeys.CONFIG_FILE, ConfigKeys.LOG_FORMAT)) {
                    String value = file.getProperty(early);
                    if (value != null && !value.strip().equals(KEYS.defaultValue(early))) {
                        throw new BadConfigurationException(early, "is read before any file: set it as -D" + early
                                + " or " + ConfigKeys.environmentName(early)).from(where);
                    }
                }
            }
        }
    }

    /** Each settings file (not the packaged defaults) that sets a secret, with those keys: for {@link OpenSecretFiles}. */
    public Map<Path, String> filesHoldingSecrets() {
        Map<Path, String> files = new LinkedHashMap<>();
        for (PropertiesSource source : properties.getPropertiesSources()) {
            if (source instanceof LocationPropertiesSource location && source instanceof LoadablePropertiesSource loadable
                    && !"classpath".equals(location.getLocation().getResolver())) {
                Properties file = loadable.loadProperties(OpenSecretFiles.SECRET_KEYS::contains);
                List<String> secrets = OpenSecretFiles.SECRET_KEYS.stream()
                        .filter(key -> !file.getProperty(key, "").isBlank()).toList();
                if (!secrets.isEmpty()) {
                    files.put(Path.of(location.getLocation().getPath()).toAbsolutePath(), String.join(", ", secrets));
                }
            }
        }
        return files;
    }

    private void refuseUnknown(Properties given, UnaryOperator<String> where) {
        for (String name : given == null ? Set.<String>of() : given.stringPropertyNames()) {
            if (name.startsWith("bridge.") && !KEYS.isKnown(name)) {
                throw unknown(name, where.apply(name), false);
            }
        }
    }

    private BadConfigurationException unknown(String name, String where, boolean environmentName) {
        String hint = KEYS.nearest(name, environmentName).map(k -> "; did you mean " + k + "?")
                .orElse("; java -jar scheduled-events-bridge.jar --help lists every key");
        return new BadConfigurationException(name, "is not a known key" + hint).from(where);
    }
}
