package io.github.scheduledeventsbridge.approval;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a request that arrived whole to its route ({@code direct:approval-api} or {@code direct:approval-events})
 * as a {@link SignedApproval} and returns the route's {@link ApprovalReply}.
 */
final class ApprovalDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalDispatcher.class);

    private final ProducerTemplate template;
    private final ApprovalMetrics metrics;

    ApprovalDispatcher(CamelContext context, ApprovalMetrics metrics) {
        this.template = context.createProducerTemplate();
        this.metrics = metrics;
    }

    ApprovalReply call(String endpoint, SignedApproval request) {
        Exchange exchange;
        try {
            exchange = template.request(endpoint, e -> e.getMessage().setBody(request));
        } catch (RuntimeException e) {
            exchange = null;
        }
        ApprovalReply reply = exchange == null || exchange.getException() != null ? null
                : exchange.getMessage().getBody(ApprovalReply.class);
        if (reply == null) {
            // Not a refusal the routes handled (e.g. the routes are not started yet): no detail to the caller.
            LOG.warn("Approval request from {} failed: {}", request.client(), exchange == null ? "the context is not running"
                    : exchange.getException() == null ? "no answer" : exchange.getException().getClass().getSimpleName());
            metrics.count("503");
            return ApprovalReply.error(503, "the agent cannot handle approvals right now");
        }
        return reply;
    }
}
