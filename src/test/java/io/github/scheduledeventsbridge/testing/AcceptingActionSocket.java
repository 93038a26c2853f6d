package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What systemd does for the packaged action socket ({@code ListenStream=} with {@code Accept=yes}), without systemd:
 * listens on a Unix-domain socket and, for each connection, starts the action host as a real {@code java} process
 * with the connection as its standard input and output (here: bytes pumped between the two).
 */
public final class AcceptingActionSocket implements AutoCloseable {

    private static final String HOST_CLASS = "io.github.scheduledeventsbridge.actionhost.ActionHost";

    private final Path path;
    private final ServerSocketChannel server;
    private final Map<String, String> hostEnvironment;
    private final String classPath;
    private final List<Process> hosts = Collections.synchronizedList(new ArrayList<>());
    private final Thread acceptor;

    private AcceptingActionSocket(Path path, Map<String, String> hostEnvironment, String classPath) throws IOException {
        this.path = path;
        this.hostEnvironment = hostEnvironment;
        this.classPath = classPath;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        this.acceptor = new Thread(this::acceptLoop, "accepting-action-socket");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Listens at {@code path}; each host is started from the compiled classes (only those: the host needs nothing
     * else) with the test's environment plus {@code hostEnvironment} (e.g. a BRIDGE_* variable it must not pass on).
     */
    public static AcceptingActionSocket listen(Path path, Map<String, String> hostEnvironment) throws IOException {
        return new AcceptingActionSocket(path, hostEnvironment, Path.of("target", "classes").toAbsolutePath().toString());
    }

    public Path path() {
        return path;
    }

    /** Every action host started so far, in order. */
    public List<Process> hosts() {
        return List.copyOf(hosts);
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel connection = server.accept();
                ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "-Xmx32m", "-cp", classPath, HOST_CLASS)
                        .redirectError(ProcessBuilder.Redirect.INHERIT);
                builder.environment().putAll(hostEnvironment);
                Process host = builder.start();
                hosts.add(host);
                pump("connection-to-host", connectionInput(connection), host.getOutputStream(), null);
                pump("host-to-connection", host.getInputStream(), connectionOutput(connection), connection);
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Copies until the end of {@code from}, then ends {@code to} (and closes the connection, when given). */
    private static void pump(String name, InputStream from, OutputStream to, SocketChannel closeAtEnd) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (from; to) {
                int n;
                while ((n = from.read(buffer)) >= 0) {
                    to.write(buffer, 0, n);
                    to.flush();
                }
            } catch (IOException ignored) {
                // One side went away: so does the other.
            }
            if (closeAtEnd != null) {
                try {
                    closeAtEnd.close();
                } catch (IOException ignored) {
                    // closed
                }
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static InputStream connectionInput(SocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return channel.read(ByteBuffer.wrap(b, off, len));
            }
        };
    }

    private static OutputStream connectionOutput(SocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }

            @Override
            public void close() throws IOException {
                channel.shutdownOutput();
            }
        };
    }

    @Override
    public void close() throws IOException, InterruptedException {
        server.close();
        for (Process host : hosts()) {
            host.destroyForcibly();
            host.waitFor(60, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(path);
    }
}
