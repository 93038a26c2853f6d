package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import io.github.scheduledeventsbridge.action.ActionSettings;
import io.github.scheduledeventsbridge.approval.ApprovalSettings;
import io.github.scheduledeventsbridge.delivery.DeliverySettings;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.delivery.WebhookSettings;
import io.github.scheduledeventsbridge.delivery.email.EmailSettings;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSettings;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSettings;
import io.github.scheduledeventsbridge.health.HealthSettings;
import io.github.scheduledeventsbridge.imds.ImdsSettings;
import io.github.scheduledeventsbridge.logging.LogFileSettings;
import io.github.scheduledeventsbridge.management.ManagementSettings;
import io.github.scheduledeventsbridge.simulator.SimulatorSettings;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/** Every {@code bridge.*} key, read and checked before anything starts; each concern's record lives beside its code. */
public record BridgeSettings(
        ImdsSettings imds,
        Path stateDir,
        String filterResources,
        WebhookSettings webhook,
        EventHubsSettings eventHubs,
        EmailSettings email,
        EventLogSettings eventLog,
        DeliverySettings delivery,
        ApprovalSettings approval,
        HealthSettings health,
        SimulatorSettings simulator,
        ManagementSettings management,
        ActionSettings actions,
        LogFileSettings logFiles) {

    public static BridgeSettings read(Function<String, String> properties) {
        return read(properties, io.github.scheduledeventsbridge.platform.Platform.current());
    }

    /** Paths on {@code platform}'s file system; without a configured state directory, the platform's default. */
    public static BridgeSettings read(Function<String, String> properties,
                                      io.github.scheduledeventsbridge.platform.Platform platform) {
        SettingsReader r = new SettingsReader(properties, platform);
        String filter = FilterSettings.resources(r, "bridge.filter.resources"); // refused before the state dir is made
        ImdsSettings imds = ImdsSettings.read(r);
        Path stateDir = r.writableDirectory("bridge.state.dir", platform.defaultStateDir());
        return new BridgeSettings(
                imds,
                stateDir,
                filter,
                WebhookSettings.read(r),
                EventHubsSettings.read(r),
                EmailSettings.read(r),
                EventLogSettings.read(r),
                DeliverySettings.read(r),
                ApprovalSettings.read(r),
                HealthSettings.read(r),
                SimulatorSettings.read(r),
                ManagementSettings.read(r),
                ActionSettings.read(r),
                logFiles(r, stateDir));
    }

    /** {@code stateDir}: the Windows default is the {@code logs} folder beside the state, as the installer makes it. */
    public static LogFileSettings logFiles(SettingsReader r, Path stateDir) {
        String configured = r.string("bridge.log.dir", "").strip();
        Optional<Path> dir;
        if (configured.isEmpty()) {
            dir = r.platform().windows() ? Optional.of(stateDir.resolve("logs")) : Optional.empty();
        } else if (configured.equals(LogFileSettings.STDOUT)) {
            dir = Optional.empty();
        } else {
            dir = Optional.of(r.writableDirectory("bridge.log.dir", configured));
        }
        long size = r.positiveLong("bridge.log.file-size", 10L * 1024 * 1024);
        if (size < LogFileSettings.SMALLEST_FILE) {
            throw new BadConfigurationException("bridge.log.file-size", size + " is below "
                    + LogFileSettings.SMALLEST_FILE + " bytes (64 KiB)");
        }
        long count = r.positiveLong("bridge.log.file-count", 10);
        if (count > LogFileSettings.MOST_FILES) {
            throw new BadConfigurationException("bridge.log.file-count", count + " is above " + LogFileSettings.MOST_FILES);
        }
        return new LogFileSettings(dir, size, (int) count);
    }

    @Override
    public String toString() {
        // Records print every component; several of these hold secrets.
        return "BridgeSettings[imds " + imds.url() + ", every " + imds.pollInterval().toMillis() + " ms, state "
                + stateDir + ", " + webhook + ", " + eventHubs + ", " + email + ", " + eventLog + ", approvals "
                + (approval.enabled() ? "on port " + approval.listener().port() : "off") + "]";
    }
}
