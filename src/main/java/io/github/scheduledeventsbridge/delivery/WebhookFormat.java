package io.github.scheduledeventsbridge.delivery;

import java.util.Locale;

/**
 * How a webhook target wants its messages: CloudEvents (default), a chat tool's own format, or an Azure Event Grid
 * topic (its own event schema, or CloudEvents in batches). The URL prefix that chooses it is {@link #prefix()}.
 */
public enum WebhookFormat {
    CLOUDEVENTS, SLACK, TEAMS, EVENTGRID, EVENTGRID_CLOUDEVENTS;

    /** {@code slack:}, {@code eventgrid-cloudevents:}, … */
    public String prefix() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-') + ":";
    }

    /** An Event Grid topic: batches of events per request, the topic key or a managed-identity token. */
    public boolean eventGrid() {
        return this == EVENTGRID || this == EVENTGRID_CLOUDEVENTS;
    }
}
