package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.testing.SelfSignedKeystore;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * STARTTLS in front of an SMTP server that has none (GreenMail 2.1.13): it relays the server's greeting and
 * EHLO answer adding {@code STARTTLS}, answers STARTTLS itself, upgrades the client's connection with a
 * self-signed certificate for 127.0.0.1, and from then on relays the TLS session's plain text to the server.
 * It records what the client sent before the upgrade, i.e. what travelled in clear.
 */
public final class StarttlsFront implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final SSLContext tls;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger upgraded = new AtomicInteger();
    private final ByteArrayOutputStream clear = new ByteArrayOutputStream();

    public StarttlsFront(int targetPort, Path workDir) throws Exception {
        this.targetPort = targetPort;
        this.tls = selfSigned(workDir);
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Sessions upgraded to TLS. */
    public int upgraded() {
        return upgraded.get();
    }

    /** What clients sent before their session was upgraded. */
    public String sentInClear() {
        synchronized (clear) {
            return clear.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** A key pair and certificate for 127.0.0.1 and localhost, made by the JDK's keytool. */
    private static SSLContext selfSigned(Path dir) throws Exception {
        return SelfSignedKeystore.create(dir.resolve("starttls-front.p12"), "smtp").serving();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                threads.execute(() -> session(client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void session(Socket client) {
        try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            sockets.add(upstream);
            InputStream fromServer = upstream.getInputStream();
            OutputStream toServer = upstream.getOutputStream();
            InputStream fromClient = client.getInputStream();
            OutputStream toClient = client.getOutputStream();
            write(toClient, line(fromServer));
            while (true) {
                String command = line(fromClient);
                if (command.isEmpty()) {
                    return;
                }
                synchronized (clear) {
                    clear.writeBytes(command.getBytes(StandardCharsets.ISO_8859_1));
                }
                String verb = command.strip().toUpperCase(Locale.ROOT);
                if (verb.startsWith("EHLO")) {
                    write(toServer, command);
                    write(toClient, withStarttls(fromServer));
                } else if (verb.equals("STARTTLS")) {
                    write(toClient, "220 2.0.0 Ready to start TLS\r\n");
                    SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(client,
                            client.getInetAddress().getHostAddress(), client.getPort(), true);
                    sockets.add(secure);
                    secure.setUseClientMode(false);
                    secure.startHandshake();
                    upgraded.incrementAndGet();
                    threads.execute(() -> pump(fromServer, secure));
                    pump(secure.getInputStream(), upstream);
                    return;
                } else {
                    write(toServer, command);
                    write(toClient, reply(fromServer));
                }
            }
        } catch (IOException ended) {
            // a side closed
        } finally {
            try {
                client.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    /** The server's EHLO answer with STARTTLS added as its last capability. */
    private static String withStarttls(InputStream fromServer) throws IOException {
        String reply = reply(fromServer);
        int last = reply.lastIndexOf("250 ");
        return reply.substring(0, last) + "250-" + reply.substring(last + 4) + "250 STARTTLS\r\n";
    }

    /** A complete, possibly multi-line, SMTP reply. */
    private static String reply(InputStream in) throws IOException {
        StringBuilder reply = new StringBuilder();
        String line;
        do {
            line = line(in);
            if (line.isEmpty()) {
                throw new IOException("server closed");
            }
            reply.append(line);
        } while (line.length() > 3 && line.charAt(3) == '-');
        return reply.toString();
    }

    /** One line, CRLF included, read byte by byte so that nothing after it (a TLS handshake) is consumed. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            line.write(b);
            if (b == '\n') {
                break;
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void pump(InputStream in, Socket to) {
        byte[] buffer = new byte[8192];
        try {
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) > 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ended) {
            // a side closed
        } finally {
            try {
                to.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        threads.shutdownNow();
    }
}
