package io.github.scheduledeventsbridge.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A webhook receiver on a plain socket that answers the way a hostile or broken one does: a body of hundreds of
 * megabytes (streamed, never held), a body that trickles one byte a second, a header line without end, or its own
 * request echoed back. {@link WebhookReceiver} is the well-behaved one; this one writes HTTP/1.1 by hand so that
 * nothing between it and the agent bounds anything. Each request's answer is chosen by its index (0 = first).
 */
public final class HostileHttpReceiver implements AutoCloseable {

    /** What the agent sent, and when the agent stopped reading the answer (closed, or reset, the connection). */
    public record Request(int index, String requestLine, String headers, String body, Instant received, Instant ended) {
    }

    /** How to answer one request. */
    public sealed interface Answer {
        /** {@code status} with {@code length} bytes of 'x' as fast as the socket takes them. */
        record Huge(int status, long length) implements Answer {
        }

        /** {@code status} announcing {@code declared} bytes, then one byte every {@code every}. */
        record Trickle(int status, long declared, Duration every) implements Answer {
        }

        /** A status line, then one header line of {@code length} bytes that never ends. */
        record EndlessHeader(long length) implements Answer {
        }

        /** {@code status} with the request (line, headers and body) as the body. */
        record Echo(int status) implements Answer {
        }

        /** A plain answer. */
        record Plain(int status, String body) implements Answer {
        }
    }

    private static final byte[] FILLER = filler();

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final List<Instant> arrivals = new CopyOnWriteArrayList<>();
    private volatile IntFunction<Answer> script;

    public HostileHttpReceiver(IntFunction<Answer> script) throws IOException {
        this.script = script;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/hook";
    }

    public String url(String pathAndQuery) {
        return "http://127.0.0.1:" + server.getLocalPort() + pathAndQuery;
    }

    /** From now on, requests are answered this way. */
    public void script(IntFunction<Answer> script) {
        this.script = script;
    }

    /** Requests whose answer has ended (the agent closed or reset the connection). */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** When each request arrived whole, answered or still being answered. */
    public List<Instant> arrivals() {
        return List.copyOf(arrivals);
    }

    private void acceptLoop() {
        int index = 0;
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                open.add(socket);
                int mine = index++;
                threads.execute(() -> converse(socket, mine));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void converse(Socket socket, int index) {
        Instant received = Instant.now();
        String head = null;
        String body = "";
        try (socket) {
            InputStream in = socket.getInputStream();
            head = readHead(in);
            if (head == null) {
                return;
            }
            long length = contentLength(head);
            body = new String(in.readNBytes((int) Math.min(length, 1 << 20)), StandardCharsets.UTF_8);
            arrivals.add(Instant.now());
            answer(socket.getOutputStream(), script.apply(index), head, body);
        } catch (IOException | InterruptedException agentHungUp) {
            // the agent stopped reading: that is what these answers are for
        } finally {
            open.remove(socket);
            if (head != null) {
                int end = head.indexOf("\r\n");
                requests.add(new Request(index, head.substring(0, end), head.substring(end + 2), body, received,
                        Instant.now()));
            }
        }
    }

    private static void answer(OutputStream out, Answer answer, String head, String body)
            throws IOException, InterruptedException {
        if (answer instanceof Answer.Huge huge) {
            out.write(("HTTP/1.1 " + huge.status() + " Whatever\r\nContent-Type: text/plain\r\nContent-Length: "
                    + huge.length() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            for (long left = huge.length(); left > 0; left -= FILLER.length) {
                out.write(FILLER, 0, (int) Math.min(left, FILLER.length));
            }
            out.flush();
        } else if (answer instanceof Answer.Trickle trickle) {
            out.write(("HTTP/1.1 " + trickle.status() + " Slow\r\nContent-Type: text/plain\r\nContent-Length: "
                    + trickle.declared() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (long sent = 0; sent < trickle.declared(); sent++) {
                TimeUnit.MILLISECONDS.sleep(trickle.every().toMillis());
                out.write('x');
                out.flush();
            }
        } else if (answer instanceof Answer.EndlessHeader header) {
            out.write("HTTP/1.1 200 OK\r\nX-Endless: ".getBytes(StandardCharsets.US_ASCII));
            for (long left = header.length(); left > 0; left -= FILLER.length) {
                out.write(FILLER, 0, (int) Math.min(left, FILLER.length));
            }
            out.flush();
        } else if (answer instanceof Answer.Echo echo) {
            plain(out, echo.status(), head + body);
        } else if (answer instanceof Answer.Plain plain) {
            plain(out, plain.status(), plain.body());
        }
    }

    private static void plain(OutputStream out, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " Answer\r\nContent-Type: text/plain\r\nContent-Length: " + bytes.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** The request line and headers (up to the empty line), or null when the connection ends first. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int c; (c = in.read()) >= 0; ) {
            head.write(c);
            matched = c == end[matched] ? matched + 1 : c == '\r' ? 1 : 0;
            if (matched == end.length) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Long.parseLong(line.substring("content-length:".length()).trim());
            }
        }
        return 0;
    }

    private static byte[] filler() {
        byte[] bytes = new byte[64 * 1024];
        Arrays.fill(bytes, (byte) 'x');
        return bytes;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : open) {
            socket.close();
        }
        threads.shutdownNow();
    }
}
