package io.github.scheduledeventsbridge.delivery.eventhubs;

import org.apache.camel.Exchange;

/** Route step: turns a spooled batch (JSON array of CloudEvents) into Event Hubs events. */
public final class EventHubsBatch {

    public void toEvents(Exchange exchange) {
        throw new UnsupportedOperationException("Event Hubs sink not implemented yet");
    }
}
