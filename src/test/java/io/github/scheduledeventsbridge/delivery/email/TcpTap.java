package io.github.scheduledeventsbridge.delivery.email;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay between the agent and a real server that counts connections and records what the client
 * sent, to see what an SMTP client did on the wire (whether it authenticated, whether it sent a message).
 */
public final class TcpTap implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final ByteArrayOutputStream clientBytes = new ByteArrayOutputStream();

    public TcpTap(int targetPort) throws IOException {
        this.targetPort = targetPort;
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    public int connections() {
        return connections.get();
    }

    /** Everything every client sent so far, as text (SMTP commands are ASCII). */
    public String clientSent() {
        synchronized (clientBytes) {
            return clientBytes.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            connections.incrementAndGet();
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream, true));
                threads.execute(() -> pump(upstream, client, false));
            } catch (IOException refused) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to, boolean record) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (record) {
                    synchronized (clientBytes) {
                        clientBytes.write(buffer, 0, n);
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ended) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(TcpTap::closeQuietly);
        threads.shutdownNow();
    }
}
