package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.config.BridgeSettings.EventHubsSettings;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Map;
import java.util.function.Predicate;

/** The Event Hubs sink: the transitions of one document as one batch, through camel-azure-eventhubs. */
public final class EventHubsSink {

    private EventHubsSink() {
    }

    public static Sink create(EventHubsSettings settings, Predicate<OutboundEvent> filter) {
        return new Sink("eventhubs", settings.toString(), "eventhubs-sink",
                Map.of("endpoint", endpointUri(settings)), filter, true);
    }

    static String endpointUri(EventHubsSettings s) {
        throw new UnsupportedOperationException("Event Hubs sink not implemented yet");
    }
}
