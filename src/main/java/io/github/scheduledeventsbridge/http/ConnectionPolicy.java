package io.github.scheduledeventsbridge.http;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The one connection policy of every listening port. A port is hostile input, and a stranger must not be able to
 * hold it against an operator, a load balancer's probe or a metrics scraper:
 * <ul>
 *   <li>A connection is <em>idle</em> from its accept (or its previous answer) until its whole request has arrived,
 *       or until the port vouched for it ({@link #vouch}, e.g. once its credentials were checked); then it is
 *       <em>answering</em> until the answer is written.</li>
 *   <li>An idle connection has {@link PortLimits#requestTimeout()}; then it is closed without an answer.</li>
 *   <li>At {@link PortLimits#maxPerClient()} connections from one address, that address's oldest idle connection is
 *       closed; at {@link PortLimits#maxConnections()}, the oldest idle connection of anyone. Never one that is
 *       answering, never the one just accepted (only when every other connection is answering and twice the cap
 *       is open does the new one go).</li>
 *   <li>A connection is read before the next one is accepted (the acceptor waits until the previous accept was
 *       opened and registered for reading): a connect flood cannot push a probe that already sent its request out
 *       before it is read, and the kernel's accept queue holds the flood, not the agent.</li>
 * </ul>
 */
final class ConnectionPolicy implements Connection.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionPolicy.class);
    private static final long ACCEPT_FAILURE_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String port;
    private final PortLimits limits;
    private final Scheduler scheduler;
    private final HttpPort.Observer observer;
    /** Open network connections in the order they were opened. */
    private final LinkedHashMap<EndPoint, Tracked> open = new LinkedHashMap<>();
    private final Map<String, Integer> perClient = new HashMap<>();
    private final Semaphore opened = new Semaphore(1);
    private long lastAcceptFailureLogged;

    static final class Tracked {
        final EndPoint endPoint;
        final String client;
        boolean answering;
        boolean gone;
        Scheduler.Task deadline;

        Tracked(EndPoint endPoint, String client) {
            this.endPoint = endPoint;
            this.client = client;
        }
    }

    private record Closing(Tracked connection, String reason) {
    }

    ConnectionPolicy(String port, PortLimits limits, Scheduler scheduler, HttpPort.Observer observer) {
        this.port = port;
        this.limits = limits;
        this.scheduler = scheduler;
        this.observer = observer;
    }

    /** Marks the request's connection as answering: the port trusts it (e.g. its credentials were right). */
    static void vouch(Request request) {
        ConnectionPolicy policy = request.getConnectionMetaData().getConnector().getBean(ConnectionPolicy.class);
        if (policy != null) {
            policy.answering(policy.tracked(request));
        }
    }

    @Override
    public void onOpened(Connection connection) {
        // With TLS the HTTP connection runs inside the TLS one: the network connection below is the one counted.
        if (!(connection.getEndPoint() instanceof SocketChannelEndPoint endPoint)) {
            return;
        }
        Tracked added = new Tracked(endPoint, client(endPoint));
        List<Closing> closing = new ArrayList<>(2);
        synchronized (this) {
            open.put(endPoint, added);
            if (perClient.merge(added.client, 1, Integer::sum) > limits.maxPerClient()) {
                evictOldestIdle(added, added.client, closing, "more than " + limits.maxPerClient() + " connections from one client");
            }
            if (open.size() > limits.maxConnections()) {
                evictOldestIdle(added, null, closing, limits.maxConnections() + " connections open");
            }
            if (open.size() > 2 * limits.maxConnections()) {
                forget(added);
                closing.add(new Closing(added, "every connection is being answered"));
            } else {
                added.deadline = scheduler.schedule(() -> expire(added), limits.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        opened.release();
        closing.forEach(this::close);
    }

    @Override
    public void onClosed(Connection connection) {
        if (connection.getEndPoint() instanceof SocketChannelEndPoint endPoint) {
            synchronized (this) {
                Tracked tracked = open.get(endPoint);
                if (tracked != null) {
                    forget(tracked);
                }
            }
        }
    }

    /** Called by the acceptor before it accepts: waits (briefly) until the previous connection was opened. */
    void awaitPreviousOpened() throws InterruptedException {
        opened.tryAcquire(100, TimeUnit.MILLISECONDS);
        opened.drainPermits();
    }

    /** Accepting failed (most likely out of file descriptors): frees the oldest idle connection's. */
    void acceptFailed(Throwable failure) {
        List<Closing> closing = new ArrayList<>(1);
        boolean log;
        synchronized (this) {
            evictOldestIdle(null, null, closing, "no file descriptor left to accept another");
            long now = System.nanoTime();
            log = lastAcceptFailureLogged == 0 || now - lastAcceptFailureLogged > ACCEPT_FAILURE_LOG_NANOS;
            if (log) {
                lastAcceptFailureLogged = now;
            }
        }
        if (log) {
            LOG.warn("The {} port could not accept a connection ({}); the oldest idle one was closed", port, failure.toString());
        }
        closing.forEach(this::close);
    }

    /** The request's connection, or null once it was closed. */
    synchronized Tracked tracked(Request request) {
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (endPoint instanceof SslConnection.SslEndPoint tls) {
            endPoint = tls.getSslConnection().getEndPoint();
        }
        return open.get(endPoint);
    }

    synchronized void answering(Tracked tracked) {
        if (tracked != null && !tracked.gone && !tracked.answering) {
            tracked.answering = true;
            tracked.deadline.cancel();
        }
    }

    /** The answer is written: a kept-alive connection is idle again, with a new deadline for its next request. */
    synchronized void answered(Tracked tracked) {
        if (tracked != null && !tracked.gone && tracked.answering) {
            tracked.answering = false;
            tracked.deadline = scheduler.schedule(() -> expire(tracked), limits.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void expire(Tracked tracked) {
        synchronized (this) {
            if (tracked.gone || tracked.answering) {
                return;
            }
            forget(tracked);
        }
        close(new Closing(tracked, "no whole request within " + limits.requestTimeout().toMillis() + " ms"));
    }

    /** The oldest idle connection (of {@code client}, or of anyone when null) other than {@code spared}, forgotten. */
    private void evictOldestIdle(Tracked spared, String client, List<Closing> closing, String reason) {
        for (Tracked candidate : open.values()) {
            if (candidate != spared && !candidate.answering && (client == null || client.equals(candidate.client))) {
                forget(candidate);
                closing.add(new Closing(candidate, reason));
                return;
            }
        }
    }

    private void forget(Tracked tracked) {
        tracked.gone = true;
        open.remove(tracked.endPoint);
        perClient.computeIfPresent(tracked.client, (client, count) -> count > 1 ? count - 1 : null);
        if (tracked.deadline != null) {
            tracked.deadline.cancel();
        }
    }

    private void close(Closing closing) {
        closing.connection().endPoint.close();
        observer.closedUnanswered(closing.connection().client, closing.reason());
    }

    private static String client(EndPoint endPoint) {
        return endPoint.getRemoteSocketAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : "?";
    }
}
