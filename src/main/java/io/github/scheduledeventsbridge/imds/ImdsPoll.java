package io.github.scheduledeventsbridge.imds;

import org.apache.camel.Exchange;
import org.apache.camel.Headers;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The poll's two steps around its GET (routes/poll.yaml): what the request carries, and what the answer is. The
 * meters (health/PollMetrics) are told as it goes: the GET sent, its answer arrived, the answer was a document.
 */
public record ImdsPoll(ImdsResponse response, PollBackoff backoff, ImdsSettings settings, Runnable started,
                       Runnable answered, Runnable succeeded) {

    /**
     * Only IMDS's own header, the api-version (as the query: the YAML DSL would name an endpoint parameter
     * api-version apiVersion) and, with the document this run holds, If-None-Match ({@link ImdsResponse}).
     */
    public void request(@Headers Map<String, Object> headers) {
        headers.clear();
        headers.put("Metadata", "true");
        headers.put(Exchange.HTTP_QUERY, "api-version=" + URLEncoder.encode(settings.apiVersion(), StandardCharsets.UTF_8));
        response.conditional(headers);
        started.run();
    }

    /** The answer as a document (a 304: the one this run holds), or the failure that imds-errors counts. */
    public ImdsDocument answer(Exchange exchange) {
        answered.run();
        ImdsDocument document = response.toDocument(exchange);
        backoff.succeeded();
        succeeded.run();
        return document;
    }
}
