package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SecretStrength;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.FilterSettings;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/** The remote approval API (only with a secret) and the automatic approval rules. */
public record ApprovalSettings(String secret, Listener listener, Tls tls, Auto auto) {

    public static ApprovalSettings read(SettingsReader r) {
        return new ApprovalSettings(SecretStrength.require("bridge.approval.secret",
                r.string("bridge.approval.secret", ""), SecretStrength.MIN_APPROVAL_SECRET_LENGTH),
                listener(r), tls(r), auto(r));
    }

    public boolean enabled() {
        return !secret.isEmpty();
    }

    /** Where the approval API listens and its limits (see ApprovalServer). */
    public record Listener(String host, int port, int maxConnections, Duration requestTimeout) {
    }

    /** TLS for the approval API: a keystore holding the server's key and certificate. */
    public record Tls(Path keystore, String password, String type) {
        public boolean enabled() {
            return keystore != null;
        }

        @Override
        public String toString() {
            return enabled() ? "TLS with " + keystore + " (" + type + ")" : "plain HTTP";
        }
    }

    /** Auto-approval rules (Microsoft's sample rules), all off by default. */
    public record Auto(boolean userInitiated, Integer freezeMaxSeconds, Set<String> eventTypes,
                       boolean leaderOnly, boolean dryRun) {
    }

    private static Listener listener(SettingsReader r) {
        String host = r.resolvableHost("bridge.approval.host", "0.0.0.0");
        long max = r.positiveLong("bridge.approval.max-connections", 64);
        if (max > 1024) {
            throw new BadConfigurationException("bridge.approval.max-connections",
                    max + " is above 1024 (each connection may hold a 64 KiB body in memory)");
        }
        return new Listener(host, r.port("bridge.approval.port", 8089), (int) max,
                r.millis("bridge.approval.request-timeout", 10_000));
    }

    private static Tls tls(SettingsReader r) {
        String keystore = r.string("bridge.approval.tls.keystore", "");
        if (keystore.isEmpty()) {
            return new Tls(null, "", "PKCS12");
        }
        Path path = Path.of(keystore).toAbsolutePath();
        if (!Files.isReadable(path)) {
            throw new BadConfigurationException("bridge.approval.tls.keystore", path + " is not a readable file");
        }
        return new Tls(path, r.string("bridge.approval.tls.keystore-password", ""),
                r.string("bridge.approval.tls.keystore-type", "PKCS12"));
    }

    private static Auto auto(SettingsReader r) {
        String freeze = r.string("bridge.approval.auto.freeze-max-seconds", "");
        Integer freezeMax = null;
        if (!freeze.isEmpty()) {
            try {
                freezeMax = Integer.parseInt(freeze);
            } catch (NumberFormatException e) {
                throw new BadConfigurationException("bridge.approval.auto.freeze-max-seconds", "'" + freeze + "' is not a number of seconds");
            }
            if (freezeMax < 1) {
                throw new BadConfigurationException("bridge.approval.auto.freeze-max-seconds", freeze + " must be at least 1");
            }
        }
        return new Auto(r.bool("bridge.approval.auto.user-initiated", false), freezeMax,
                r.names("bridge.approval.auto.event-types", "", FilterSettings.EVENT_TYPES),
                r.bool("bridge.approval.auto.leader-only", true), r.bool("bridge.approval.auto.dry-run", false));
    }
}
