package io.github.scheduledeventsbridge.actionhost;

import io.github.scheduledeventsbridge.command.BoundedCommand;
import io.github.scheduledeventsbridge.command.CommandObserver;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
import io.github.scheduledeventsbridge.command.HostProtocol;
import io.github.scheduledeventsbridge.command.ProcessTree;
import io.github.scheduledeventsbridge.command.RunningProcesses;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Runs one prepare or recover command for an agent that handed it over a Unix-domain socket
 * ({@code bridge.action.host-socket}), as another user and in another unit than the agent: under the package, systemd
 * accepts each connection and starts this with the connection as standard input and output. It reads one request,
 * runs the command with a minimal environment through the same bounded runner as the agent's own, streams the output
 * lines back and then the outcome. If the connection ends first (the agent died or gave up), or its own deadline
 * passes, it kills the command's whole tree and exits. Plain JDK, a handful of classes: no Camel, no logging framework.
 */
public final class ActionHost {

    /** How long a connection may take to send its request. */
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);
    /** Beyond the command's own timeout (which kills it and reports timed-out), for the kill and the answer. */
    static final Duration GRACE = Duration.ofSeconds(30);

    /** How long ending it waits for a command whose start is under way. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    static final int OK = 0;
    static final int BAD_REQUEST = 2;
    static final int CONNECTION_LOST = 3;
    static final int DEADLINE = 4;

    private final InputStream in;
    private final OutputStream out;
    private final PrintStream diagnostics;
    private final RunningProcesses running = new RunningProcesses();
    /** Once the outcome is on its way, the agent closing the connection is the normal end, not a hang-up. */
    private boolean answered;
    private boolean abandoning;

    ActionHost(InputStream in, OutputStream out, PrintStream diagnostics) {
        this.in = in;
        this.out = out;
        this.diagnostics = diagnostics;
    }

    public static void main(String[] args) {
        OutputStream connection = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        // Standard output is the connection: nothing else may ever write there.
        System.setOut(System.err);
        int code = new ActionHost(new FileInputStream(FileDescriptor.in), connection, System.err).serve();
        System.exit(code);
    }

    int serve() {
        Thread requestWatch = watchdog(REQUEST_DEADLINE, "no request within " + REQUEST_DEADLINE.toSeconds() + " s",
                BAD_REQUEST);
        CommandSpec spec;
        try {
            spec = HostProtocol.readRequest(in);
        } catch (IOException e) {
            say("action host: bad request: " + e.getMessage());
            return BAD_REQUEST;
        } finally {
            requestWatch.interrupt();
        }
        say("action host: running " + spec.label() + " (timeout " + spec.timeout().toMillis() + " ms)");
        watchdog(spec.timeout().plus(GRACE), "the command outlived its timeout", DEADLINE);
        Thread hangUp = new Thread(this::awaitHangUp, "action-host-connection");
        hangUp.setDaemon(true);
        hangUp.start();
        CommandResult result;
        try {
            result = BoundedCommand.run(spec, BoundedCommand.Environment.MINIMAL, new Answers(), running);
        } catch (InterruptedException e) {
            return CONNECTION_LOST;
        }
        // The hang-up may have killed the command: then its kill decides how this ends, not the result.
        if (!claimAnswer()) {
            awaitHalt();
        }
        try {
            synchronized (out) {
                HostProtocol.writeEnd(out, result);
            }
        } catch (IOException e) {
            say("action host: the outcome could not be sent: " + e.getMessage());
            return CONNECTION_LOST;
        }
        say("action host: " + spec.label() + " " + result.outcome()
                + (result.exitCode() == null ? "" : " (exit code " + result.exitCode() + ")"));
        return OK;
    }

    /**
     * One line to the journal (standard error), escaped as the agent's own log escapes (docs/security.md): the
     * event id and whatever a request carries cannot start a line of their own or send terminal escapes.
     */
    private void say(String line) {
        diagnostics.println(escaped(line));
    }

    /** C0 controls, DEL, C1 controls and U+2028/9 as \n, \r, \t or \\uXXXX. */
    static String escaped(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int shortForm = "\n\r\t".indexOf(c);
            if (shortForm >= 0) {
                out.append('\\').append("nrt".charAt(shortForm));
            } else if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The agent sends nothing after its request: the end of the stream (or an error) means it is gone. */
    private void awaitHangUp() {
        try {
            while (in.read() >= 0) {
                // Anything more is not part of the protocol; only the end counts.
            }
        } catch (IOException ignored) {
            // Same as the end of the stream.
        }
        abandon("the connection ended before the command did", CONNECTION_LOST);
    }

    private Thread watchdog(Duration after, String reason, int exitCode) {
        Thread thread = new Thread(() -> {
            try {
                Thread.sleep(after.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            abandon(reason, exitCode);
        }, "action-host-deadline");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** True when the outcome may be sent: nothing abandoned the command first. */
    private synchronized boolean claimAnswer() {
        if (!abandoning) {
            answered = true;
        }
        return answered;
    }

    private void awaitHalt() {
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException ignored) {
                // Only the halt ends this.
            }
        }
    }

    /**
     * Kills what runs, whole trees, and ends this process at once (the connection is useless now); nothing once the
     * outcome is on its way (the agent closing the connection after reading it is the normal end).
     */
    private void abandon(String reason, int exitCode) {
        synchronized (this) {
            if (answered && exitCode == CONNECTION_LOST) {
                return;
            }
            abandoning = true;
        }
        say("action host: " + reason + ": killing the command and its children");
        for (Process process : running.close(KILL_WAIT)) {
            ProcessTree.kill(process.toHandle(), ProcessTree.ownSessions());
        }
        diagnostics.flush();
        Runtime.getRuntime().halt(exitCode);
    }

    /** Sends what the command says, as it says it; a connection that cannot take it any more ends this host. */
    private final class Answers implements CommandObserver {

        @Override
        public void started(long pid) {
            send(HostProtocol.STARTED, longs(pid));
        }

        @Override
        public void line(String line) {
            send(HostProtocol.LINE, line.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void dropped(long bytes, long lines) {
            send(HostProtocol.DROPPED, longs(bytes, lines));
        }

        private byte[] longs(long... values) {
            try {
                return HostProtocol.longs(values);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private void send(byte type, byte[] payload) {
            try {
                synchronized (out) {
                    HostProtocol.writeFrame(out, type, payload);
                }
            } catch (IOException e) {
                abandon("the connection cannot be written (" + e.getMessage() + ")", CONNECTION_LOST);
            }
        }
    }
}
