package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.CommandObserver;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
import io.github.scheduledeventsbridge.command.HostProtocol;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Commands handed to an action host (actionhost.ActionHost) over a Unix-domain socket, one connection each: the
 * host runs them as its own user in its own unit. Closing the connection is how the agent gives up (the host then kills the command), so
 * the agent's death, a stop, or a host that does not answer within the timeout and a grace all end the command.
 */
public final class HostSocketLauncher implements CommandLauncher {

    /** The host kills at the timeout itself; this covers the kill and the answer. */
    static final Duration GRACE = Duration.ofSeconds(15);

    private final Path socket;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bridge-action-host-deadline");
        t.setDaemon(true);
        return t;
    });

    public HostSocketLauncher(Path socket) {
        this.socket = socket;
    }

    @Override
    public CommandResult run(CommandSpec spec, CommandObserver observer) throws InterruptedException {
        long started = System.nanoTime();
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            return CommandResult.notRun("cannot open a Unix-domain socket: " + e.getMessage(), since(started));
        }
        open.add(channel);
        AtomicBoolean gaveUp = new AtomicBoolean();
        ScheduledFuture<?> deadline = deadlines.schedule(() -> {
            gaveUp.set(true);
            close(channel);
        }, spec.timeout().plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        try {
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
            } catch (ClosedByInterruptException e) {
                throw interrupted();
            } catch (IOException e) {
                return CommandResult.notRun("cannot reach the action host at " + socket + ": " + e.getMessage(),
                        since(started));
            }
            HostProtocol.writeRequest(Channels.newOutputStream(channel), spec);
            return answers(new BufferedInputStream(Channels.newInputStream(channel)), observer, started);
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        } catch (AsynchronousCloseException e) {
            if (gaveUp.get()) {
                return CommandResult.timedOut(since(started));
            }
            throw interrupted();
        } catch (IOException e) {
            return CommandResult.notRun("the action host at " + socket + " failed: " + e.getMessage(), since(started));
        } finally {
            deadline.cancel(false);
            close(channel);
            open.remove(channel);
        }
    }

    private static CommandResult answers(InputStream in, CommandObserver observer, long started) throws IOException {
        while (true) {
            HostProtocol.Frame frame = HostProtocol.readFrame(in, HostProtocol.MAX_ANSWER);
            if (frame == null) {
                return CommandResult.notRun("the action host ended without an outcome", since(started));
            }
            DataInputStream data = frame.data();
            switch (frame.type()) {
                case HostProtocol.STARTED -> observer.started(data.readLong());
                case HostProtocol.LINE -> observer.line(new String(frame.payload(), StandardCharsets.UTF_8));
                case HostProtocol.DROPPED -> observer.dropped(data.readLong(), data.readLong());
                case HostProtocol.END -> {
                    return HostProtocol.readEnd(frame);
                }
                default -> throw new IOException("unknown frame type " + frame.type());
            }
        }
    }

    @Override
    public void stop() {
        List.copyOf(open).forEach(HostSocketLauncher::close);
        deadlines.shutdownNow();
    }

    @Override
    public String describe() {
        return "handed to the action host at " + socket;
    }

    private static InterruptedException interrupted() {
        Thread.currentThread().interrupt();
        return new InterruptedException("the agent is stopping");
    }

    private static void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing is all that is wanted.
        }
    }

    private static Duration since(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }
}
