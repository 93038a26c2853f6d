package io.github.scheduledeventsbridge.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.support.service.ServiceSupport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One listening port (approval, drain, management, simulator) as a Camel service: an embedded Jetty with one
 * HTTP/1.1 connector bounded by {@link PortLimits} and the {@link ConnectionPolicy}; refusals made before the
 * port's {@link Handler} are JSON {@code {"error": …}}, told to its {@link Observer}.
 */
public final class HttpPort extends ServiceSupport {

    /** What a port wants to know about the requests and connections refused before its handler saw them. */
    public interface Observer {
        /** Answered by the server itself: request line or headers too long, body too large, not HTTP/1.1. */
        default void refused(String client, int status, String reason) {
        }

        /** Closed without an answer: no whole request in time, or the oldest idle connection at a cap. */
        default void closedUnanswered(String client, String reason) {
        }
    }

    /** A keystore with the server's key and certificate. */
    public record Tls(Path keystore, String password, String type) {
        /** Not the password. */
        @Override
        public String toString() {
            return "Tls[" + keystore + ", " + type + "]";
        }

        SslContextFactory.Server context() {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setKeyStorePath(keystore.toString());
            ssl.setKeyStorePassword(password);
            ssl.setKeyStoreType(type);
            return ssl;
        }
    }

    private static final ObjectMapper JSON = io.github.scheduledeventsbridge.json.Json.MAPPER;
    /** Buffers kept for reuse, shared by every port and bounded: a flood leaves at most this much behind. */
    private static final ByteBufferPool BUFFERS = new ArrayByteBufferPool(0, -1, 64 * 1024, 64, 2L << 20, 2L << 20);

    private final String name;
    private final String host;
    private final int requestedPort;
    private final PortLimits limits;
    private final int threads;
    private final Handler handler;
    private Tls tls;
    private Observer observer = new Observer() {
    };
    private Server server;
    private volatile int port = -1;

    /** {@code threads}: the most requests answered at once (the acceptor and the selector come on top). */
    public HttpPort(String name, String host, int port, PortLimits limits, int threads, Handler handler) {
        this.name = name;
        this.host = host;
        this.requestedPort = port;
        this.limits = limits;
        this.threads = threads;
        this.handler = handler;
    }

    public HttpPort tls(Tls tls) {
        this.tls = tls;
        return this;
    }

    public HttpPort observer(Observer observer) {
        this.observer = observer;
        return this;
    }

    /** The port it listens on (useful with port 0), or -1. */
    public int port() {
        return port;
    }

    /** Marks the request's connection as trusted (e.g. authenticated): never closed as idle while answered. */
    public static void vouch(Request request) {
        ConnectionPolicy policy = request.getConnectionMetaData().getConnector().getBean(ConnectionPolicy.class);
        policy.answering(policy.tracked(request));
    }

    /** Writes a JSON answer; {@code close} ends the connection after it. */
    public static void json(Response response, Callback callback, int status, String json, boolean close) {
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        if (close) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        send(response, callback, status, "application/json", json);
    }

    /** Writes a whole answer in UTF-8 with its length; a null body is an empty one, without a content type. */
    public static void send(Response response, Callback callback, int status, String contentType, String body) {
        response.setStatus(status);
        if (body != null) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        }
        response.write(true, body == null ? null : StandardCharsets.UTF_8.encode(body), callback); // one write: Jetty sends its length
    }

    /** {@code {"error": reason}}. */
    public static String errorJson(String reason) {
        return JSON.createObjectNode().put("error", reason).toString();
    }

    @Override
    protected void doStart() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(threads + 2, 2);
        pool.setName(name + "-http");
        pool.setDaemon(true);
        pool.setReservedThreads(0);
        ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler(name + "-http-timer", true);
        Server jetty = new Server(pool, scheduler, BUFFERS);
        jetty.setErrorHandler(new JsonErrors());
        jetty.setStopTimeout(5_000);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        http.setRequestHeaderSize(8 * 1024); // request line and headers: 431 beyond (414 for the line alone)
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        ConnectionPolicy connections = new ConnectionPolicy(name, limits, scheduler, observer);
        ReadBeforeAccepting connector = tls == null ? new ReadBeforeAccepting(jetty, connections, http11)
                : new ReadBeforeAccepting(jetty, connections, new SslConnectionFactory(tls.context(), http11.getProtocol()), http11);
        connector.setHost(host);
        connector.setPort(requestedPort);
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        connector.setAcceptQueueSize(128);
        connector.addBean(connections);
        jetty.addConnector(connector);
        jetty.setHandler(new RequestGuard(connections, handler));
        server = jetty; // if it fails to start, Camel stops this service, and so Jetty's threads
        jetty.start();
        port = connector.getLocalPort();
    }

    @Override
    protected void doStop() throws Exception {
        port = -1;
        if (server != null) {
            server.stop();
        }
    }

    /** Accepts one connection at a time, each once the previous one was opened for reading (see ConnectionPolicy). */
    private static final class ReadBeforeAccepting extends ServerConnector {
        private final ConnectionPolicy policy;

        ReadBeforeAccepting(Server server, ConnectionPolicy policy, ConnectionFactory... factories) {
            super(server, 1, 1, factories);
            this.policy = policy;
        }

        @Override
        public void accept(int acceptorID) throws IOException {
            try {
                policy.awaitPreviousOpened();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            super.accept(acceptorID);
        }

        @Override
        protected boolean handleAcceptFailure(Throwable failure) {
            if (!isRunning() || !isOpen() || failure instanceof java.nio.channels.ClosedChannelException) {
                return false; // stopping: the listening socket was closed under the acceptor
            }
            policy.acceptFailed(failure);
            try {
                Thread.sleep(50); // the descriptor just freed is closed asynchronously
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** Jetty's own refusals (bad request line, headers too large, body too large) as JSON, told to the observer. */
    private final class JsonErrors extends ErrorHandler {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = response.getStatus();
            String reason = switch (status) {
                case 400 -> "not an HTTP/1.1 request";
                case 413 -> RequestGuard.tooLarge(limits.maxBodyBytes());
                case 414 -> "request line too long";
                case 431 -> "headers too large";
                case 426, 505 -> "only HTTP/1.1 is spoken";
                default -> "request refused";
            };
            observer.refused(Request.getRemoteAddr(request), status, reason);
            json(response, callback, status, errorJson(reason), true);
            return true;
        }
    }
}
