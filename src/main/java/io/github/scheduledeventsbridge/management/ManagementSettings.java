package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SecretStrength;
import io.github.scheduledeventsbridge.config.SettingsReader;


/**
 * Health, metrics and the Hawtio console on one HTTP port; the console only with credentials, and read-only
 * unless {@code readOnly} is false.
 */
public record ManagementSettings(boolean enabled, String host, int port, String username, String password,
                                 boolean readOnly, int maxConnections) {

    /** HTTP Basic over a port that may be reachable from the network: long enough to resist guessing. */
    public static final int MIN_PASSWORD_LENGTH = 16;

    public boolean credentials() {
        return !username.isEmpty();
    }

    @Override
    public String toString() {
        return enabled ? "management on " + host + ":" + port + (credentials() ? " (user " + username + ")" : "")
                + (readOnly ? "" : ", console not read-only") : "management off";
    }

    public static ManagementSettings read(SettingsReader r) {
        String host = r.resolvableHost("bridge.management.host", "127.0.0.1");
        String username = r.string("bridge.management.username", "");
        String password = r.string("bridge.management.password", "");
        if (username.contains(":")) {
            throw new BadConfigurationException("bridge.management.username", "must not contain ':' (HTTP Basic)");
        }
        if (username.isEmpty() != password.isEmpty()) {
            throw username.isEmpty()
                    ? new BadConfigurationException("bridge.management.username", "is required when bridge.management.password is set")
                    : new BadConfigurationException("bridge.management.password", "is required when bridge.management.username is set");
        }
        SecretStrength.require("bridge.management.password", password, MIN_PASSWORD_LENGTH);
        long maxConnections = r.positiveLong("bridge.management.max-connections", 64);
        if (maxConnections > 1024) {
            throw new BadConfigurationException("bridge.management.max-connections",
                    maxConnections + " is above 1024 (each connection holds buffers and a file descriptor)");
        }
        return new ManagementSettings(r.bool("bridge.management.enabled", true), host,
                r.port("bridge.management.port", 8080), username, password, r.bool("bridge.management.read-only", true),
                (int) maxConnections);
    }
}
