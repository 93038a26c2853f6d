package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.FilterSettings;

import java.util.Locale;

/** Event Hubs by connection string, or by the VM's managed identity (namespace + hub name). */
public record EventHubsSettings(String connectionString, String namespace, String hubName, FilterSettings filter) {

    public static EventHubsSettings read(SettingsReader r) {
        String connectionString = r.string("bridge.eventhubs.connection-string", "");
        String namespace = r.string("bridge.eventhubs.namespace", "");
        String hub = r.string("bridge.eventhubs.name", "");
        if (!connectionString.isEmpty()) {
            if (!namespace.isEmpty()) {
                throw new BadConfigurationException("bridge.eventhubs.namespace",
                        "set either a connection string or a namespace (managed identity), not both");
            }
            String lower = connectionString.toLowerCase(Locale.ROOT);
            if (!lower.contains("endpoint=") || !lower.contains("entitypath=")) {
                throw new BadConfigurationException("bridge.eventhubs.connection-string",
                        "must contain Endpoint=… and EntityPath=… (the hub)");
            }
        } else if (!namespace.isEmpty() && hub.isEmpty()) {
            throw new BadConfigurationException("bridge.eventhubs.name",
                    "is required with bridge.eventhubs.namespace (managed identity)");
        }
        return new EventHubsSettings(connectionString, namespace, hub,
                FilterSettings.read(r, "bridge.eventhubs.filter", "", ""));
    }

    public boolean enabled() {
        return !connectionString.isEmpty() || !namespace.isEmpty();
    }

    public boolean managedIdentity() {
        return connectionString.isEmpty() && !namespace.isEmpty();
    }

    /** The sink's label: namespace and hub, never the key. */
    public String label() {
        return "Event Hubs " + (managedIdentity() ? namespace + "/" + hubName : endpointOf(connectionString));
    }

    @Override
    public String toString() {
        return managedIdentity() ? label() + " (managed identity)"
                : enabled() ? label() + " (connection string)"
                : "Event Hubs disabled";
    }

    /** The namespace host and hub of a connection string, never its key. */
    public static String endpointOf(String connectionString) {
        String endpoint = "?";
        String entity = "?";
        for (String part : connectionString.split(";")) {
            String[] kv = part.split("=", 2);
            if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("Endpoint")) {
                endpoint = kv[1].trim();
            } else if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("EntityPath")) {
                entity = kv[1].trim();
            }
        }
        return endpoint + "/" + entity;
    }
}
