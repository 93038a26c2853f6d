package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.config.BadConfigurationException;


import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.JksOptions;
import io.vertx.core.net.PfxOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.BindException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The approval port: a small Vert.x HTTP/1.1 server in front of the {@code direct:approval-*} routes.
 *
 * <p>Why not camel-platform-http-vertx: that server has no limit on connections, no read deadline (slowloris),
 * speaks h2c, buffers a whole body before refusing it, consumes form-encoded bodies as parameters (the signature
 * covers the raw bytes), answers refusals in plain text and logs a port it could not bind as up. Every byte that
 * arrives here is bounded before Camel sees it:
 * <ul>
 *   <li>at most {@code bridge.approval.max-connections} open connections; one more is closed at once;</li>
 *   <li>one request per connection, which must arrive whole (headers and body) within
 *       {@code bridge.approval.request-timeout}, else the connection is closed;</li>
 *   <li>a body over 64 KiB is refused with 413 as soon as it is announced or counted, never buffered, so
 *       max-connections × 64 KiB bounds the request memory (4 MiB by default);</li>
 *   <li>HTTP/1.1 only (no ALPN, no h2c upgrade), 8 KiB of headers, 2 KiB request line;</li>
 *   <li>every answer is JSON and closes the connection.</li>
 * </ul>
 * The checks that decide (signature, timestamp, replay, shape, event) stay in the routes and {@link ApprovalGate}.
 */
public final class ApprovalServer extends ServiceSupport {

    /** Bound in the Camel registry under this name; {@link #port()} is the port it got. */
    public static final String BEAN_NAME = "approvalServer";
    private static final Logger LOG = LoggerFactory.getLogger(ApprovalServer.class);
    static final String APPROVALS_PATH = "/api/v1/approvals";
    static final String EVENTS_PATH = "/api/v1/events";
    /** After a 413 the rest of the body is read and dropped (not kept) for a while, so the client sees the answer. */
    private static final long DISCARD_LIMIT = 1024 * 1024;

    private final CamelContext context;
    private final ApprovalSettings.Listener listener;
    private final ApprovalSettings.Tls tls;
    private final long idleTimeoutMs;
    private final ApprovalAudit audit;
    private final Map<HttpConnection, Long> deadlines = new HashMap<>(); // event-loop thread only
    private Vertx vertx;
    private ApprovalDispatcher dispatcher;
    private volatile int port = -1;

    public ApprovalServer(CamelContext context, ApprovalSettings.Listener listener, ApprovalSettings.Tls tls, long imdsTimeoutMs,
                          ApprovalAudit audit) {
        this.context = context;
        this.listener = listener;
        this.tls = tls;
        // The connection also waits for IMDS once its request is in; idleness only ends a stuck writer/reader.
        this.idleTimeoutMs = listener.requestTimeout().toMillis() + imdsTimeoutMs + 5_000;
        this.audit = audit;
    }

    /** The port it listens on (useful with port 0), or -1. */
    public int port() {
        return port;
    }

    @Override
    protected void doStart() throws Exception {
        // One event loop, four workers for the routes (IMDS answers within bridge.imds.timeout); no file cache
        // (no .vertx directory in the working directory, which may be read-only under systemd).
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(1).setPreferNativeTransport(false)
                .setFileSystemOptions(new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false)));
        dispatcher = new ApprovalDispatcher(context, vertx);
        HttpServerOptions options = new HttpServerOptions()
                .setHost(listener.host()).setPort(listener.port())
                .setUseAlpn(false).setHttp2ClearTextEnabled(false)
                .setMaxHeaderSize(8 * 1024).setMaxInitialLineLength(2 * 1024).setMaxChunkSize(8 * 1024)
                .setCompressionSupported(false).setDecompressionSupported(false)
                .setHandle100ContinueAutomatically(false)
                .setIdleTimeout((int) idleTimeoutMs).setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setAcceptBacklog(128);
        if (tls.enabled()) {
            options.setSsl(true).setSslHandshakeTimeout(listener.requestTimeout().toMillis())
                    .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
            if ("JKS".equals(tls.type().toUpperCase(Locale.ROOT))) {
                options.setKeyCertOptions(new JksOptions().setPath(tls.keystore().toString()).setPassword(tls.password()));
            } else {
                options.setKeyCertOptions(new PfxOptions().setPath(tls.keystore().toString()).setPassword(tls.password()));
            }
        }
        HttpServer server = vertx.createHttpServer(options)
                .connectionHandler(this::connected)
                .invalidRequestHandler(this::invalid)
                .requestHandler(this::request);
        try {
            port = server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).actualPort();
        } catch (ExecutionException e) {
            vertx.close();
            Throwable cause = e.getCause();
            if (cause instanceof BindException || String.valueOf(cause.getMessage()).contains("in use")) {
                throw new BadConfigurationException("bridge.approval.port", "port " + listener.port() + " on "
                        + listener.host() + " cannot be bound (" + cause.getMessage() + ")");
            }
            // Otherwise the keystore could not be used (wrong password, wrong type): the message names no secret.
            throw new BadConfigurationException(tls.enabled() ? "bridge.approval.tls.keystore" : "bridge.approval.host",
                    "cannot listen on " + listener.host() + ":" + listener.port() + " (" + cause.getClass().getSimpleName() + ")");
        }
        vertx.setPeriodic(60_000, id -> audit.flush());
        LOG.info("Remote approval API on {}:{} ({}, at most {} connections, {} ms per request): "
                        + "POST {}, GET {}", listener.host(), port, tls, listener.maxConnections(),
                listener.requestTimeout().toMillis(), APPROVALS_PATH, EVENTS_PATH);
    }

    @Override
    protected void doStop() {
        if (vertx != null) {
            audit.flush();
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
            vertx = null;
        }
        port = -1;
    }

    private void connected(HttpConnection connection) {
        if (deadlines.size() >= listener.maxConnections()) {
            audit.refused(address(connection), 503, "too many connections", null);
            dispatcher.count("too-many-connections");
            connection.close();
            return;
        }
        long timer = vertx.setTimer(listener.requestTimeout().toMillis(), id -> {
            deadlines.remove(connection);
            audit.refused(address(connection), 408, "request not received within the request timeout", null);
            dispatcher.count("408");
            connection.close();
        });
        deadlines.put(connection, timer);
        connection.closeHandler(v -> {
            Long pending = deadlines.remove(connection);
            if (pending != null) {
                vertx.cancelTimer(pending);
            }
        });
    }

    private void request(HttpServerRequest request) {
        HttpConnection connection = request.connection();
        if (!deadlines.containsKey(connection)) { // refused or timed out already
            connection.close();
            return;
        }
        String client = address(connection);
        String path = request.path();
        HttpMethod expected = APPROVALS_PATH.equals(path) ? HttpMethod.POST : EVENTS_PATH.equals(path) ? HttpMethod.GET : null;
        if (expected == null) {
            refuse(request, client, 404, "no such path; the API is POST " + APPROVALS_PATH + " and GET " + EVENTS_PATH);
            return;
        }
        if (!expected.equals(request.method())) {
            request.response().putHeader("Allow", expected.name());
            refuse(request, client, 405, "use " + expected.name() + " " + path);
            return;
        }
        long announced = contentLength(request);
        if (announced > ApprovalGate.MAX_BODY_BYTES) {
            refuse(request, client, 413, "body over 64 KiB");
            return;
        }
        if ("100-continue".equalsIgnoreCase(request.getHeader("Expect"))) {
            request.response().writeContinue(); // only now that path, method and length are acceptable
        }
        Buffer body = Buffer.buffer(announced > 0 ? (int) announced : 256);
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (!refused[0] && body.length() + chunk.length() > ApprovalGate.MAX_BODY_BYTES) {
                refused[0] = true;
                refuse(request, client, 413, "body over 64 KiB");
            } else if (!refused[0]) {
                body.appendBuffer(chunk);
            }
        });
        request.exceptionHandler(e -> connection.close());
        request.endHandler(v -> {
            if (refused[0]) {
                return;
            }
            Long timer = deadlines.get(connection);
            if (timer != null) {
                vertx.cancelTimer(timer);
            }
            String endpoint = expected == HttpMethod.POST ? "direct:approval-api" : "direct:approval-events";
            dispatcher.dispatch(endpoint, body.getBytes(), request.getHeader("X-Bridge-Timestamp"),
                    request.getHeader("X-Bridge-Signature"), client).onComplete(answer -> {
                        ApprovalDispatcher.Reply reply = answer.succeeded() ? answer.result()
                                : ApprovalDispatcher.Reply.error(503, "the agent is not ready");
                        ApprovalDispatcher.write(request, reply.status(), reply.json());
                    });
        });
    }

    /** Refused before Camel: answered, counted, logged (rate-limited), then the rest of the body is dropped. */
    private void refuse(HttpServerRequest request, String client, int status, String reason) {
        audit.refused(client, status, reason, null);
        dispatcher.count(Integer.toString(status));
        if (!request.isEnded()) {
            long[] dropped = {0};
            request.handler(chunk -> {
                dropped[0] += chunk.length();
                if (dropped[0] > DISCARD_LIMIT) {
                    request.connection().close();
                }
            });
        }
        ApprovalDispatcher.write(request, status, ApprovalDispatcher.errorJson(reason));
    }

    /** Requests Netty could not decode (line or headers too long, not HTTP): a JSON answer, then closed. */
    private void invalid(HttpServerRequest request) {
        Throwable cause = request.decoderResult().cause();
        String name = cause == null ? "" : cause.getClass().getSimpleName();
        int status = name.contains("TooLongHttpLine") || name.contains("TooLongUri") ? 414
                : name.contains("TooLongHttpHeader") ? 431 : 400;
        String reason = status == 414 ? "request line too long" : status == 431 ? "headers too large" : "not an HTTP/1.1 request";
        audit.refused(address(request.connection()), status, reason, null);
        dispatcher.count(Integer.toString(status));
        ApprovalDispatcher.write(request, status, ApprovalDispatcher.errorJson(reason));
    }

    private static long contentLength(HttpServerRequest request) {
        String value = request.getHeader("Content-Length");
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE; // refused as too large rather than trusted
        }
    }

    private static String address(HttpConnection connection) {
        return connection.remoteAddress() == null ? "?" : connection.remoteAddress().hostAddress();
    }
}
