package io.github.scheduledeventsbridge.http;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
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
import java.util.function.Predicate;

/**
 * The one connection policy of every listening port, as docs/security.md ("Every port: one connection policy")
 * describes it: an idle connection (its whole request not yet arrived, or not vouched for) has a request deadline;
 * at a cap the oldest idle connection goes; the next connection is accepted once the previous one is read.
 */
final class ConnectionPolicy implements Connection.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionPolicy.class);

    private final String port;
    final PortLimits limits;
    private final Scheduler scheduler;
    final HttpPort.Observer observer;
    /** Open network connections in the order they were opened. */
    private final LinkedHashMap<EndPoint, Tracked> open = new LinkedHashMap<>();
    private final Map<String, Integer> perClient = new HashMap<>();
    /** Open connections per client network ({@link ClientNetwork}): at the cap, the busiest network gives one up. */
    private final Map<String, Integer> perNetwork = new HashMap<>();
    private final Semaphore opened = new Semaphore(1);
    private long nextAcceptFailureLog = System.nanoTime();

    static final class Tracked {
        final EndPoint endPoint;
        final String client;
        final String network;
        boolean answering;
        boolean gone;
        Scheduler.Task deadline;

        Tracked(EndPoint endPoint, String client) {
            this.endPoint = endPoint;
            this.client = client;
            this.network = ClientNetwork.of(client);
        }
    }

    ConnectionPolicy(String port, PortLimits limits, Scheduler scheduler, HttpPort.Observer observer) {
        this.port = port;
        this.limits = limits;
        this.scheduler = scheduler;
        this.observer = observer;
    }

    @Override
    public void onOpened(Connection connection) {
        // With TLS the HTTP connection runs inside the TLS one: the network connection below is the one counted.
        if (!(connection.getEndPoint() instanceof SocketChannelEndPoint endPoint)) {
            return;
        }
        Tracked added = new Tracked(endPoint, client(endPoint));
        List<Runnable> closing = new ArrayList<>(2);
        synchronized (this) {
            open.put(endPoint, added);
            perNetwork.merge(added.network, 1, Integer::sum);
            if (perClient.merge(added.client, 1, Integer::sum) > limits.maxPerClient()) {
                evictOldestIdle(added, c -> c.client.equals(added.client), closing,
                        "more than " + limits.maxPerClient() + " connections from one client");
            }
            if (open.size() > limits.maxConnections()) {
                String busiest = busiestNetwork();
                if (!evictOldestIdle(added, c -> c.network.equals(busiest), closing, limits.maxConnections()
                        + " connections open, most of them from " + busiest)) {
                    evictOldestIdle(added, c -> true, closing, limits.maxConnections() + " connections open");
                }
            }
            if (open.size() > 2 * limits.maxConnections()) {
                forget(added);
                closing.add(() -> close(added, "every connection is being answered"));
            } else {
                added.deadline = scheduler.schedule(() -> expire(added), limits.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        opened.release();
        closing.forEach(Runnable::run);
    }

    @Override
    public synchronized void onClosed(Connection connection) {
        Tracked tracked = open.get(connection.getEndPoint());
        if (tracked != null) {
            forget(tracked);
        }
    }

    /** Called by the acceptor before it accepts: waits (briefly) until the previous connection was opened. */
    void awaitPreviousOpened() throws InterruptedException {
        opened.tryAcquire(100, TimeUnit.MILLISECONDS);
        opened.drainPermits();
    }

    /** Accepting failed (most likely out of file descriptors): frees the oldest idle connection's. */
    void acceptFailed(Throwable failure) {
        List<Runnable> closing = new ArrayList<>(1);
        boolean log;
        synchronized (this) {
            evictOldestIdle(null, c -> true, closing, "no file descriptor left to accept another");
            long now = System.nanoTime();
            log = now - nextAcceptFailureLog >= 0; // one line a minute
            if (log) {
                nextAcceptFailureLog = now + TimeUnit.MINUTES.toNanos(1);
            }
        }
        if (log) { // not under the lock every connection of the port waits for
            LOG.warn("The {} port could not accept a connection ({}); the oldest idle one was closed", port, failure.toString());
        }
        closing.forEach(Runnable::run);
    }

    /** The request's connection, or null once it was closed. */
    synchronized Tracked tracked(Request request) {
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        return open.get(endPoint instanceof EndPoint.Wrapper tls ? tls.unwrap() : endPoint); // TLS: the network one
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
        close(tracked, "no whole request within " + limits.requestTimeout().toMillis() + " ms");
    }

    /** The oldest idle connection {@code of} matches, other than {@code spared}, forgotten; false when there is none. */
    private boolean evictOldestIdle(Tracked spared, Predicate<Tracked> of, List<Runnable> closing, String reason) {
        for (Tracked candidate : open.values()) {
            if (candidate != spared && !candidate.answering && of.test(candidate)) {
                forget(candidate);
                closing.add(() -> close(candidate, reason));
                return true;
            }
        }
        return false;
    }

    /** The network with the most open connections: many addresses of one network cannot push the others out. */
    private String busiestNetwork() {
        return perNetwork.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }

    private void forget(Tracked tracked) {
        tracked.gone = true;
        open.remove(tracked.endPoint);
        perClient.computeIfPresent(tracked.client, (client, count) -> count > 1 ? count - 1 : null);
        perNetwork.computeIfPresent(tracked.network, (network, count) -> count > 1 ? count - 1 : null);
        if (tracked.deadline != null) {
            tracked.deadline.cancel();
        }
    }

    private void close(Tracked tracked, String reason) {
        tracked.endPoint.close();
        observer.closedUnanswered(tracked.client, reason);
    }

    private static String client(EndPoint endPoint) {
        return endPoint.getRemoteSocketAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : "?";
    }
}
