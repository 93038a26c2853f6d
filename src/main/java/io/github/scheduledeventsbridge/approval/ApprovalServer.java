package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.http.HttpPort;
import io.github.scheduledeventsbridge.http.PortLimits;
import org.apache.camel.CamelContext;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.BindException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The approval port: the agent's one HTTP stack ({@link HttpPort}) in front of the {@code direct:approval-*} routes,
 * every byte bounded before Camel sees it (docs/security.md); every answer is JSON and closes the connection. The
 * route sees the raw body, the two signature headers and the client's address, nothing else the client sent; the
 * checks that decide stay in the routes and {@link ApprovalGate}.
 */
public final class ApprovalServer extends Handler.Abstract implements HttpPort.Observer {

    /** Bound in the Camel registry under this name; {@link #port()} is the port it got. */
    public static final String BEAN_NAME = "approvalServer";
    private static final Logger LOG = LoggerFactory.getLogger(ApprovalServer.class);
    static final String APPROVALS_PATH = "/api/v1/approvals";
    static final String EVENTS_PATH = "/api/v1/events";

    private final CamelContext context;
    private final ApprovalSettings.Listener listener;
    private final ApprovalSettings.Tls tls;
    private final ApprovalAudit audit;
    private final ApprovalMetrics metrics;
    private final ApprovalDispatcher dispatcher;
    private final HttpPort port;
    private ScheduledExecutorService auditTimer;

    public ApprovalServer(CamelContext context, ApprovalSettings.Listener listener, ApprovalSettings.Tls tls, long imdsTimeoutMs,
                          ApprovalAudit audit, ApprovalMetrics metrics) {
        this.context = context;
        this.listener = listener;
        this.tls = tls;
        this.audit = audit;
        this.metrics = metrics;
        this.dispatcher = new ApprovalDispatcher(context, metrics);
        // An answer may wait for IMDS, and so may a thread: 8, approvals are few and the reading threads stay free.
        PortLimits limits = PortLimits.of(listener.maxConnections(), ApprovalGate.MAX_BODY_BYTES, listener.requestTimeout())
                .answeringWithin(listener.requestTimeout().plus(Duration.ofMillis(imdsTimeoutMs + 5_000)));
        this.port = new HttpPort("approval", listener.host(), listener.port(), limits, 8, this)
                .tls(tls.enabled() ? new HttpPort.Tls(tls.keystore(), tls.password(), tls.type()) : null)
                .observer(this);
    }

    /** Refused before Camel (by the port or by path and method): counted, logged (rate-limited). */
    @Override
    public void refused(String client, int status, String reason) {
        audit.refused(client, status, reason, null);
        metrics.count(Integer.toString(status));
    }

    @Override
    public void closedUnanswered(String client, String reason) {
        audit.closed(client, reason);
        metrics.count(ApprovalMetrics.CLOSED_UNANSWERED);
    }

    /** The port it listens on (useful with port 0), or -1. */
    public int port() {
        return port.port();
    }

    /** The approval port, started: a Camel service ({@code StartOrder}), stopped after the routes. */
    public HttpPort listen() {
        try {
            port.start();
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof BindException || cause.getCause() instanceof BindException) {
                throw new BadConfigurationException("bridge.approval.port", "port " + listener.port() + " on "
                        + listener.host() + " cannot be bound (" + (cause.getCause() == null ? cause : cause.getCause()).getMessage() + ")");
            }
            // Otherwise the keystore could not be used (wrong password, wrong type): the message names no secret.
            throw new BadConfigurationException(tls.enabled() ? "bridge.approval.tls.keystore" : "bridge.approval.host",
                    "cannot listen on " + listener.host() + ":" + listener.port() + " (" + cause.getClass().getSimpleName() + ")");
        }
        LOG.info("Remote approval API on {}:{} ({}, at most {} connections, {} ms per request): POST {}, GET {}",
                listener.host(), port.port(), tls, listener.maxConnections(), listener.requestTimeout().toMillis(),
                APPROVALS_PATH, EVENTS_PATH);
        return port;
    }

    /** With the port (Jetty starts and stops its handler): the audit's summaries once a minute, the last at the stop. */
    @Override
    protected void doStart() throws Exception {
        auditTimer = context.getExecutorServiceManager().newSingleThreadScheduledExecutor(this, "approval-audit");
        auditTimer.scheduleWithFixedDelay(audit::flush, 1, 1, TimeUnit.MINUTES);
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        context.getExecutorServiceManager().shutdown(auditTimer);
        audit.flush();
    }

    /** POST /api/v1/approvals and GET /api/v1/events: path and method checked, the body read whole, then the route. */
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String client = Request.getRemoteAddr(request);
        String path = request.getHttpURI().getPath();
        String expected = APPROVALS_PATH.equals(path) ? "POST" : EVENTS_PATH.equals(path) ? "GET" : null;
        if (expected == null) {
            refuse(response, callback, client, 404, "no such path; the API is POST " + APPROVALS_PATH + " and GET " + EVENTS_PATH);
        } else if (!expected.equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, expected);
            refuse(response, callback, client, 405, "use " + expected + " " + path);
        } else {
            // Bounded by the port (its 413 audited and counted as every refusal); read without holding a thread.
            Content.Source.asByteArrayAsync(request, -1).whenComplete((body, failure) -> {
                if (failure != null) {
                    callback.failed(failure);
                    return;
                }
                String endpoint = expected.equals("POST") ? "direct:approval-api" : "direct:approval-events";
                // The route may wait for IMDS: on a pool thread, never the one that read the body.
                request.getComponents().getThreadPool().execute(() -> {
                    ApprovalReply reply = dispatcher.call(endpoint, new SignedApproval(body,
                            request.getHeaders().get("X-Bridge-Timestamp"), request.getHeaders().get("X-Bridge-Signature"), client));
                    HttpPort.json(response, callback, reply.status(), reply.json(), true);
                });
            });
        }
        return true;
    }

    private void refuse(Response response, Callback callback, String client, int status, String reason) {
        refused(client, status, reason);
        HttpPort.json(response, callback, status, HttpPort.errorJson(reason), true);
    }
}
