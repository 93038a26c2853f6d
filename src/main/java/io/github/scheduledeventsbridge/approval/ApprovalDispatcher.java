package io.github.scheduledeventsbridge.approval;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a request that arrived whole to its route ({@code direct:approval-api} or {@code direct:approval-events})
 * on a worker thread, never on the event loop, and writes the route's JSON answer back. The route sees the raw
 * body bytes, the two signature headers and the client's address, nothing else the client sent.
 */
final class ApprovalDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalDispatcher.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    record Reply(int status, String json) {
        static Reply error(int status, String reason) {
            return new Reply(status, errorJson(reason));
        }
    }

    private final ProducerTemplate template;
    private final Vertx vertx;

    ApprovalDispatcher(CamelContext context, Vertx vertx) {
        this.template = context.createProducerTemplate();
        this.vertx = vertx;
    }

    Future<Reply> dispatch(String endpoint, byte[] body, String timestamp, String signature, String client) {
        return vertx.executeBlocking(() -> call(endpoint, body, timestamp, signature, client), false);
    }

    private Reply call(String endpoint, byte[] body, String timestamp, String signature, String client) {
        Exchange exchange = template.request(endpoint, e -> {
            e.getMessage().setBody(body);
            if (timestamp != null) {
                e.getMessage().setHeader(WebhookSigner.TIMESTAMP_HEADER, timestamp);
            }
            if (signature != null) {
                e.getMessage().setHeader(WebhookSigner.SIGNATURE_HEADER, signature);
            }
            e.getMessage().setHeader(ApprovalAudit.CLIENT_HEADER, client);
        });
        if (exchange.getException() != null) {
            // Not a refusal the routes handled (e.g. the routes are not started yet): no detail to the caller.
            LOG.warn("Approval request from {} failed: {}", client, exchange.getException().getClass().getSimpleName());
            count("503");
            return Reply.error(503, "the agent cannot handle approvals right now");
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

    static String errorJson(String reason) {
        return MAPPER.createObjectNode().put("error", reason).toString();
    }

    /**
     * Every answer is JSON and ends the connection. A client still sending (a refused body) gets the answer
     * first; the connection closes when its body ends, or at the request deadline.
     */
    static void write(HttpServerRequest request, int status, String json) {
        HttpServerResponse response = request.response();
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .putHeader("Connection", "close");
        response.end(json).onComplete(v -> {
            if (request.isEnded()) {
                request.connection().close();
            } else {
                request.endHandler(end -> request.connection().close());
            }
        });
    }
}
