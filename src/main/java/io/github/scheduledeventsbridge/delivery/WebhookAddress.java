package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Headers;

import java.util.Map;

/**
 * Route step before a webhook POST: where it goes and with which credentials, looked up at run time. The
 * URL goes in {@code CamelHttpUri} exactly as configured (camel-http keeps a query's percent-encoding as it
 * is), so {@code ?code=abc%2Bdef} arrives as {@code ?code=abc%2Bdef} and {@code ?proxyHost=} is only a query.
 */
public final class WebhookAddress {

    public void address(@ExchangeProperty(Sink.PROPERTY) Sink sink, @Headers Map<String, Object> headers) {
        WebhookTarget target = sink.targetAs(WebhookTarget.class);
        headers.put(Exchange.HTTP_URI, target.requestUrl());
        // Receivers' logs and firewalls can tell the agent and its version apart from other callers.
        headers.put("User-Agent", io.github.scheduledeventsbridge.config.BridgeVersion.userAgent());
        target.basicAuthorization().ifPresent(value -> headers.put("Authorization", value));
    }
}
