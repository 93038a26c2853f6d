package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.http.HttpPort;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a request that arrived whole to its route ({@code direct:approval-api} or {@code direct:approval-events})
 * and returns the route's JSON answer. The route sees the raw body bytes, the two signature headers and the
 * client's address (an exchange property, so that no route step can drop it), nothing else the client sent.
 */
final class ApprovalDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalDispatcher.class);

    record Reply(int status, String json) {
    }

    private final ProducerTemplate template;

    ApprovalDispatcher(CamelContext context) {
        this.template = context.createProducerTemplate();
    }

    Reply call(String endpoint, byte[] body, String timestamp, String signature, String client) {
        Exchange exchange;
        try {
            exchange = template.request(endpoint, e -> {
                e.getMessage().setBody(body);
                if (timestamp != null) {
                    e.getMessage().setHeader(WebhookSigner.TIMESTAMP_HEADER, timestamp);
                }
                if (signature != null) {
                    e.getMessage().setHeader(WebhookSigner.SIGNATURE_HEADER, signature);
                }
                e.setProperty(ApprovalAudit.CLIENT_PROPERTY, client);
            });
        } catch (RuntimeException e) {
            exchange = null;
        }
        if (exchange == null || exchange.getException() != null) {
            // Not a refusal the routes handled (e.g. the routes are not started yet): no detail to the caller.
            LOG.warn("Approval request from {} failed: {}", client, exchange == null ? "the context is not running"
                    : exchange.getException().getClass().getSimpleName());
            count("503");
            return new Reply(503, HttpPort.errorJson("the agent cannot handle approvals right now"));
        }
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String json = exchange.getMessage().getBody(String.class);
        return new Reply(status == null ? 200 : status, json == null ? "{}" : json);
    }

    /** {@code bridge_approvals_total{outcome}} for refusals made before a route ran; outcomes are a fixed set. */
    void count(String outcome) {
        try {
            template.sendBody("micrometer:counter:bridge.approvals?tags.outcome=" + outcome, null);
        } catch (RuntimeException e) {
            LOG.debug("Cannot count approval outcome {}: {}", outcome, e.getMessage());
        }
    }
}
