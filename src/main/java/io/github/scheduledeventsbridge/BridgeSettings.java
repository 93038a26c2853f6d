package io.github.scheduledeventsbridge;

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
import io.github.scheduledeventsbridge.management.ManagementSettings;
import io.github.scheduledeventsbridge.simulator.SimulatorSettings;

import java.nio.file.Path;
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
        ActionSettings actions) {

    public static BridgeSettings read(Function<String, String> properties) {
        return read(properties, io.github.scheduledeventsbridge.platform.Platform.current());
    }

    /** Paths on {@code platform}'s file system; without a configured state directory, the platform's default. */
    public static BridgeSettings read(Function<String, String> properties,
                                      io.github.scheduledeventsbridge.platform.Platform platform) {
        SettingsReader r = new SettingsReader(properties, platform);
        String filter = FilterSettings.resources(r, "bridge.filter.resources"); // refused before the state dir is made
        return new BridgeSettings(
                ImdsSettings.read(r),
                r.writableDirectory("bridge.state.dir", platform.defaultStateDir()),
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
                ActionSettings.read(r));
    }

    @Override
    public String toString() {
        // Records print every component; several of these hold secrets.
        return "BridgeSettings[imds " + imds.url() + ", every " + imds.pollInterval().toMillis() + " ms, state "
                + stateDir + ", " + webhook + ", " + eventHubs + ", " + email + ", " + eventLog + ", approvals "
                + (approval.enabled() ? "on port " + approval.listener().port() : "off") + "]";
    }
}
