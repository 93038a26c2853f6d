package io.github.scheduledeventsbridge.config;

import org.apache.camel.Ordered;
import org.apache.camel.spi.PropertiesSource;

import java.util.Map;

/**
 * {@code BRIDGE_*} environment variables as a Camel properties source ({@code bridge.imds.url} ←
 * {@code BRIDGE_IMDS_URL}), ordered before the properties files and after -D system properties. Camel's own
 * environment lookup cannot be used: it lets a variable beat -D, does not strip values, and reads only
 * System.getenv (a test's Platform brings its own environment).
 */
public record EnvironmentVariablesSource(Map<String, String> environment) implements PropertiesSource, Ordered {

    static final String NAME = "environment variables";

    @Override
    public String getName() {
        return NAME;
    }

    /** Before the properties files: Camel numbers those from 100 in the order of their locations. */
    @Override
    public int getOrder() {
        return 50;
    }

    /** Stripped, as Camel strips the values of properties files. */
    @Override
    public String getProperty(String name) {
        String value = name.startsWith("bridge.") ? environment.get(ConfigKeys.environmentName(name)) : null;
        return value == null ? null : value.strip();
    }
}
