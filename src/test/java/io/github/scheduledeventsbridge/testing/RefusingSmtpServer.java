package io.github.scheduledeventsbridge.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A minimal SMTP server on a real socket that answers the end of DATA with {@code 550} when {@code refuse}
 * matches the message, and {@code 250} otherwise: a server refusing one message for good.
 */
public final class RefusingSmtpServer implements AutoCloseable {

    private final ServerSocket server;
    private final Predicate<String> refuse;
    private final List<String> accepted = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int hostileGreetings;
    private volatile long greetingBytes;
    private volatile java.time.Duration greetingPace = java.time.Duration.ZERO;

    public RefusingSmtpServer(Predicate<String> refuse) throws IOException {
        this.refuse = refuse;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "refusing-smtp");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public List<String> accepted() {
        return List.copyOf(accepted);
    }

    public List<String> refused() {
        return List.copyOf(refused);
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /**
     * A hostile server (or a man in the middle before STARTTLS): the next {@code count} connections are greeted with
     * "220 " and {@code bytes} bytes without a line end, one every {@code pace} (zero: as fast as the socket takes
     * them), and then closed; later ones are served as usual.
     */
    public void hostileGreetings(int count, long bytes, java.time.Duration pace) {
        greetingBytes = bytes;
        greetingPace = pace;
        hostileGreetings = count;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                connections.incrementAndGet();
                if (hostileGreetings > 0) {
                    hostileGreetings--;
                    greetEndlessly(socket);
                    continue;
                }
                converse(socket);
            } catch (IOException e) {
                // closed, or the client hung up: next connection
            }
        }
    }

    private void converse(Socket socket) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
        Writer out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.US_ASCII);
        reply(out, "220 refusing-smtp ready");
        String line;
        while ((line = in.readLine()) != null) {
            String command = line.length() >= 4 ? line.substring(0, 4).toUpperCase(java.util.Locale.ROOT) : line;
            switch (command) {
                case "DATA" -> {
                    reply(out, "354 end with <CRLF>.<CRLF>");
                    StringBuilder message = new StringBuilder();
                    for (String data = in.readLine(); data != null && !data.equals("."); data = in.readLine()) {
                        message.append(data).append('\n');
                    }
                    if (refuse.test(message.toString())) {
                        refused.add(message.toString());
                        reply(out, "550 5.7.1 Message refused by policy");
                    } else {
                        accepted.add(message.toString());
                        reply(out, "250 2.0.0 queued");
                    }
                }
                case "QUIT" -> {
                    reply(out, "221 bye");
                    return;
                }
                default -> reply(out, "250 ok");
            }
        }
    }

    private void greetEndlessly(Socket socket) throws IOException {
        java.io.OutputStream out = socket.getOutputStream();
        out.write("220 ".getBytes(StandardCharsets.US_ASCII));
        byte[] filler = new byte[greetingPace.isZero() ? 64 * 1024 : 1];
        java.util.Arrays.fill(filler, (byte) 'x');
        try {
            for (long left = greetingBytes; left > 0; left -= filler.length) {
                out.write(filler, 0, (int) Math.min(left, filler.length));
                if (!greetingPace.isZero()) {
                    out.flush();
                    java.util.concurrent.TimeUnit.MILLISECONDS.sleep(greetingPace.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void reply(Writer out, String line) throws IOException {
        out.write(line + "\r\n");
        out.flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
