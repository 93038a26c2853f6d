package io.github.scheduledeventsbridge.config;

import org.apache.camel.Ordered;
import org.apache.camel.spi.PropertiesSource;

import java.util.Map;

/**
 * {@code BRIDGE_*} variables as a properties source, after -D and before the files. Not Camel's own: it lets a variable
 * beat -D, does not strip values, and reads only System.getenv (a test's Platform brings its own environment).
 */
public record EnvironmentVariablesSource(Map<String, String> environment) implements PropertiesSource, Ordered {

    static final String NAME = "environment variables";

    @Override
    public String getName() {
        return NAME;
    }

    /** Not the environment: it holds secrets (BRIDGE_APPROVAL_SECRET…). */
    @Override
    public String toString() {
        return getName();
    }

    /** Camel numbers the properties files from 100. */
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
