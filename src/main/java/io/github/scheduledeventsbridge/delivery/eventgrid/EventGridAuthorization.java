package io.github.scheduledeventsbridge.delivery.eventgrid;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.delivery.HttpAnswer;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.WebhookTarget;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Headers;

import java.io.IOException;
import java.util.Map;

/**
 * Before each POST to an Event Grid topic ({@link EventGridSender}): its URL, and either the topic's key
 * ({@code aeg-sas-key}) or a bearer token of the VM's managed identity for {@value #RESOURCE}. Both go in this
 * request's headers only, so they reach the configured URL's host and no other (a redirect is never followed:
 * docs/delivery.md).
 */
public final class EventGridAuthorization {

    public static final String KEY_HEADER = "aeg-sas-key";
    /** The audience Event Grid accepts Microsoft Entra tokens for. */
    public static final String RESOURCE = "https://eventgrid.azure.net";

    private final String key;
    private final AccessTokens tokens;

    /** {@code key} empty or null: tokens from {@code tokens}. */
    public EventGridAuthorization(String key, AccessTokens tokens) {
        this.key = key == null ? "" : key;
        this.tokens = tokens;
    }

    public boolean usesKey() {
        return !key.isEmpty();
    }

    public void authorize(@ExchangeProperty(Sink.PROPERTY) Sink sink, @Headers Map<String, Object> headers) {
        WebhookTarget target = sink.targetAs(WebhookTarget.class);
        headers.put(Exchange.HTTP_URI, target.requestUrl());
        headers.put("User-Agent", BridgeVersion.userAgent());
        if (usesKey()) {
            headers.put(KEY_HEADER, key);
            return;
        }
        try {
            headers.put("Authorization", "Bearer " + tokens.token(RESOURCE));
        } catch (IOException | RuntimeException e) {
            // Retried with the sink's back-off, like a topic that does not answer.
            throw new HttpAnswer.DeliveryFailedException(sink.id() + ": no managed-identity token for Event Grid ("
                    + e.getMessage() + "); will retry");
        }
    }

    /** Never the key. */
    @Override
    public String toString() {
        return usesKey() ? "Event Grid topic key" : "Event Grid managed identity";
    }
}
