package io.github.scheduledeventsbridge.config;

import org.apache.camel.Ordered;
import org.apache.camel.spi.LoadablePropertiesSource;

import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

/**
 * {@code BRIDGE_*} environment variables as a Camel properties source ({@code bridge.imds.url} ←
 * {@code BRIDGE_IMDS_URL}). Ordered before the properties files and after -D system properties, which
 * Camel itself looks up first: the documented precedence, kept by Camel rather than by the agent.
 */
public final class EnvironmentVariablesSource implements LoadablePropertiesSource, Ordered {

    /** Before the properties files: Camel numbers those from 100 in the order of their locations. */
    static final int ORDER = 50;

    private final Map<String, String> environment;

    public EnvironmentVariablesSource(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    @Override
    public String getName() {
        return "environment variables";
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public String getProperty(String name) {
        return name.startsWith("bridge.") ? stripped(environment.get(ConfigKeys.environmentName(name))) : null;
    }

    @Override
    public Properties loadProperties() {
        return loadProperties(key -> true);
    }

    @Override
    public Properties loadProperties(Predicate<String> filter) {
        Properties properties = new Properties();
        for (ConfigKeys.Key key : ConfigKeys.packaged().all()) {
            String value = stripped(environment.get(key.environmentName()));
            if (value != null && filter.test(key.name())) {
                properties.setProperty(key.name(), value);
            }
        }
        return properties;
    }

    /** Camel strips the values of properties files; a variable's value is treated the same way. */
    private static String stripped(String value) {
        return value == null ? null : value.strip();
    }

    @Override
    public void reloadProperties(String location) {
        // The environment of a running process does not change.
    }
}
