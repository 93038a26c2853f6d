package io.github.scheduledeventsbridge.action;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Function;

/**
 * The drain signal's listener: one thread and one selector, non-blocking reads, one request per connection.
 * The port is open to the network and a load balancer's probe depends on it, so no client can hold it up:
 * <ul>
 *   <li>a slow client holds no thread (the JDK's HttpServer reads a request on a handler thread: two stalled
 *       clients used to stop its two threads and every probe behind them);</li>
 *   <li>each connection has {@code requestTimeout} from its accept to its answer, then it is closed;</li>
 *   <li>at most {@code maxConnections} are open; one more closes the oldest, so slow or idle clients cannot
 *       lock a probe out (it sends its request at once and is answered within milliseconds);</li>
 *   <li>the request head is read into 8 KiB at most (431 beyond), bodies are never read.</li>
 * </ul>
 */
final class DrainPort implements AutoCloseable {

    static final int MAX_HEAD = 8 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(DrainPort.class);

    private final Function<DrainHttp.Request, DrainHttp.Answer> handler;
    private final int maxConnections;
    private final long requestTimeoutNanos;
    private final Selector selector;
    private final ServerSocketChannel server;
    /** Open connections in accept order: the oldest is the first to reach its deadline and the first to go. */
    private final ArrayDeque<Connection> connections = new ArrayDeque<>();
    private final Thread thread;
    private volatile boolean open = true;
    private SelectionKey acceptKey;
    /** When accepting failed with no connection of ours to close: accept again at this time (nanoTime), or 0. */
    private long acceptAgainAt;

    private static final class Connection {
        final SocketChannel channel;
        final long deadline;
        final ByteBuffer head = ByteBuffer.allocate(MAX_HEAD);
        /** Where the search for the end of the head goes on from. */
        int searched;
        SelectionKey key;
        ByteBuffer answer;

        Connection(SocketChannel channel, long deadline) {
            this.channel = channel;
            this.deadline = deadline;
        }
    }

    DrainPort(String host, int port, int maxConnections, Duration requestTimeout, Function<DrainHttp.Request, DrainHttp.Answer> handler)
            throws IOException {
        this.handler = handler;
        this.maxConnections = maxConnections;
        this.requestTimeoutNanos = requestTimeout.toNanos();
        selector = Selector.open();
        server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(host, port), 64);
            server.configureBlocking(false);
            acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            selector.close();
            throw e;
        }
        thread = new Thread(this::serve, "bridge-drain");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return ((InetSocketAddress) server.socket().getLocalSocketAddress()).getPort();
    }

    private void serve() {
        try (selector; server) {
            while (open) {
                Connection oldest = connections.peekFirst();
                long next = oldest == null ? acceptAgainAt : acceptAgainAt == 0 ? oldest.deadline : Math.min(oldest.deadline, acceptAgainAt);
                long wait = oldest == null && acceptAgainAt == 0 ? 0 : Math.max(1, (next - System.nanoTime()) / 1_000_000 + 1);
                selector.select(wait);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else if (key.isReadable()) {
                        read((Connection) key.attachment());
                    } else if (key.isWritable()) {
                        write((Connection) key.attachment());
                    }
                }
                selector.selectedKeys().clear();
                long now = System.nanoTime();
                if (acceptAgainAt != 0 && now - acceptAgainAt >= 0) {
                    acceptAgainAt = 0;
                    acceptKey.interestOps(SelectionKey.OP_ACCEPT);
                }
                while (!connections.isEmpty() && connections.peekFirst().deadline - now <= 0) {
                    close(connections.peekFirst());
                }
            }
        } catch (IOException | CancelledKeyException e) {
            LOG.error("The drain signal stopped listening: {}", e.toString());
        } finally {
            connections.forEach(c -> quietly(c.channel));
            connections.clear();
        }
    }

    private void accept() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                // Out of file descriptors, most likely: free the oldest connection's and go on listening; with none
                // of ours to free, pause accepting for 100 ms rather than spin on the waiting connection.
                if (!connections.isEmpty()) {
                    close(connections.peekFirst());
                } else {
                    acceptKey.interestOps(0);
                    acceptAgainAt = System.nanoTime() + 100_000_000L;
                }
                logAcceptFailure(e);
                return;
            }
            if (channel == null) {
                return;
            }
            if (connections.size() >= maxConnections) {
                close(connections.peekFirst());
            }
            try {
                channel.configureBlocking(false);
                Connection connection = new Connection(channel, System.nanoTime() + requestTimeoutNanos);
                connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
                connections.addLast(connection);
            } catch (IOException e) {
                quietly(channel);
            }
        }
    }

    private long lastAcceptFailureLogged;

    private void logAcceptFailure(IOException e) {
        long now = System.nanoTime();
        if (lastAcceptFailureLogged == 0 || now - lastAcceptFailureLogged > 60_000_000_000L) {
            lastAcceptFailureLogged = now;
            LOG.warn("The drain signal could not accept a connection ({}); the oldest was closed", e.toString());
        }
    }

    private void read(Connection c) {
        try {
            if (c.channel.read(c.head) < 0) {
                close(c);
                return;
            }
        } catch (IOException e) {
            close(c);
            return;
        }
        int end = endOfHead(c);
        if (end >= 0) {
            DrainHttp.Request request = DrainHttp.parse(c.head.array(), end);
            respond(c, request == null ? DrainHttp.error(400, "not an HTTP/1.x request") : answer(request),
                    request != null && request.method().equals("HEAD"));
        } else if (!c.head.hasRemaining()) {
            respond(c, DrainHttp.error(431, "request head larger than 8 KiB"), false);
        }
    }

    private DrainHttp.Answer answer(DrainHttp.Request request) {
        try {
            return handler.apply(request);
        } catch (RuntimeException e) {
            // The listener outlives a failed answer: the next probe may be answered.
            LOG.warn("The drain signal could not answer: {}", e.toString());
            return DrainHttp.error(500, "no answer");
        }
    }

    /** Where the blank line that ends the head starts, or -1; each byte is looked at about once. */
    private static int endOfHead(Connection c) {
        byte[] bytes = c.head.array();
        int i = c.searched;
        for (; i + 4 <= c.head.position(); i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n') {
                return i;
            }
        }
        c.searched = i;
        return -1;
    }

    private void respond(Connection c, DrainHttp.Answer answer, boolean head) {
        c.answer = ByteBuffer.wrap(DrainHttp.response(answer, head));
        c.key.interestOps(SelectionKey.OP_WRITE);
        write(c);
    }

    private void write(Connection c) {
        try {
            c.channel.write(c.answer);
        } catch (IOException e) {
            close(c);
            return;
        }
        if (!c.answer.hasRemaining()) {
            close(c);
        }
    }

    private void close(Connection c) {
        connections.remove(c);
        c.key.cancel();
        quietly(c.channel);
    }

    private static void quietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        open = false;
        selector.wakeup();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
