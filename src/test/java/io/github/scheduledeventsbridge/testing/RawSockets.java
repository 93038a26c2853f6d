package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Reading what a listening port sends back over a plain socket, where a reset counts as the end. */
public final class RawSockets {

    private RawSockets() {
    }

    /** The next byte, or -1 at the end of the stream or on a reset (the agent closed the connection). */
    public static int readOrReset(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (SocketException reset) {
            return -1;
        }
    }

    /** Everything until the end of the stream or a reset, as ISO-8859-1 text. */
    public static String readAll(InputStream in) throws IOException {
        StringBuilder text = new StringBuilder();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) > 0; ) {
                text.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketException reset) {
            // the answer came before the reset
        }
        return text.toString();
    }

    /** A new connection to {@code port} on loopback that sends {@code start} and then nothing more. */
    public static Socket stall(int port, String start) throws IOException {
        return stallFrom("127.0.0.1", port, start);
    }

    /**
     * A new connection to {@code port} on loopback from {@code source} (any 127.x.y.z: a client of its own), which
     * sends {@code start} and then nothing more.
     */
    public static Socket stallFrom(String source, int port, String start) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(source, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.getOutputStream().write(start.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** True when the agent has not closed {@code socket}: a read finds nothing within {@code within}. */
    public static boolean stillOpen(Socket socket, Duration within) {
        try {
            socket.setSoTimeout((int) Math.max(1, within.toMillis()));
            return readOrReset(socket.getInputStream()) != -1;
        } catch (java.net.SocketTimeoutException open) {
            return true;
        } catch (IOException closed) {
            return false;
        }
    }

    /** {@link #exchange}, from {@code source} (any 127.x.y.z). */
    public static String exchangeFrom(String source, int port, String request, Duration within) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(source, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) within.toMillis());
            socket.setSoTimeout((int) within.toMillis());
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return readAll(socket.getInputStream());
        }
    }

    /**
     * Sends {@code request} on a new connection and reads the answer to its end; a connection or an answer that
     * takes longer than {@code within} throws ({@link java.net.SocketTimeoutException}).
     */
    public static String exchange(int port, String request, Duration within) throws IOException {
        return exchangeFrom("127.0.0.1", port, request, within);
    }
}
