package io.github.scheduledeventsbridge.command;

import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.windows.ChildEnvironment;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command as a child process within bounds: its input written by a thread of its own (a command that never
 * reads a large input still times out), its output read in chunks through an {@link OutputLimiter}, and at the
 * timeout its whole tree killed. Plain JDK only: the action host runs it too.
 */
public final class BoundedCommand {

    /** How long output is still read after the command exited (a background child may hold the pipe open). */
    private static final Duration OUTPUT_GRACE = Duration.ofSeconds(1);

    /** Which environment the command starts from, before its SEB_* variables are added. */
    public enum Environment {
        /** The caller's, without any BRIDGE_* variable (the agent's configuration and secrets). */
        INHERITED_WITHOUT_BRIDGE,
        /** Only PATH, LANG, HOME, USER and LOGNAME (the action host: nothing of whoever started it). */
        MINIMAL
    }

    private BoundedCommand() {
    }

    /**
     * Runs it to its end or its timeout. {@code running} holds the process meanwhile (so that a stopping agent can
     * kill it; once it is closed nothing starts); an interrupt kills it too and is passed on.
     */
    public static CommandResult run(CommandSpec spec, Environment base, CommandObserver observer,
                                    RunningProcesses running) throws InterruptedException {
        long started = System.nanoTime();
        if (!running.beginStart()) {
            throw new InterruptedException("stopping: no command is started any more");
        }
        Process process;
        try {
            process = start(spec, base);
        } catch (IOException | RuntimeException e) {
            // A missing shell, an unusable environment: the command could not run, which is a failure like any other.
            running.endStart(null);
            return CommandResult.notRun("cannot be started: " + e.getMessage(), since(started));
        }
        running.endStart(process);
        try {
            observer.started(process.pid());
            Thread writer = daemon("bridge-action-input", () -> write(process.getOutputStream(), spec.stdin()));
            Thread reader = daemon("bridge-action-output", () -> read(process.getInputStream(), observer));
            writer.start();
            reader.start();
            boolean exited;
            try {
                exited = process.waitFor(spec.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                ProcessTree.kill(process.toHandle(), ProcessTree.ownSessions());
                throw e;
            }
            if (!exited) {
                ProcessTree.kill(process.toHandle(), ProcessTree.ownSessions());
                reader.join(OUTPUT_GRACE.toMillis());
                return CommandResult.timedOut(since(started));
            }
            // Output a background child still writes is read on (bounded) by the reader, after this returns.
            reader.join(OUTPUT_GRACE.toMillis());
            return CommandResult.exited(process.exitValue(), since(started));
        } finally {
            running.remove(process);
        }
    }

    private static Process start(CommandSpec spec, Environment base) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(ProcessTree.inOwnSession(spec.argv())).redirectErrorStream(true);
        prepareEnvironment(builder.environment(), base);
        builder.environment().putAll(spec.environment());
        // setsid would start and then fail to run it (exit 127): said plainly instead.
        String program = spec.argv().get(0);
        if (!findable(program, builder.environment().get("PATH"), Platform.current())) {
            throw new IOException(program + " is not an executable file"
                    + (program.contains(File.separator) ? "" : " on the PATH"));
        }
        return builder.start();
    }

    /** Windows searches more than the PATH (the system directories, PATHEXT): there a name is left to it to find. */
    public static boolean findable(String program, String path, Platform platform) {
        if (program.contains(File.separator) || path == null) {
            return Files.isExecutable(Path.of(program));
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return platform.windows();
    }

    private static void prepareEnvironment(Map<String, String> environment, Environment base) {
        if (base == Environment.MINIMAL) {
            environment.clear();
            environment.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
            environment.put("LANG", "C.UTF-8");
            environment.put("HOME", System.getProperty("user.home", "/"));
            environment.put("USER", System.getProperty("user.name", ""));
            environment.put("LOGNAME", System.getProperty("user.name", ""));
        } else {
            ChildEnvironment.removeAgentSettings(environment);
        }
    }

    private static void write(OutputStream stdin, byte[] input) {
        try (stdin) {
            stdin.write(input);
        } catch (IOException ignored) {
            // The command ended without reading all of its input: fine.
        }
    }

    private static void read(InputStream output, CommandObserver observer) {
        OutputLimiter limiter = new OutputLimiter(observer);
        byte[] chunk = new byte[8192];
        try (output) {
            int n;
            while ((n = output.read(chunk)) >= 0) {
                limiter.accept(chunk, 0, n);
            }
        } catch (IOException ignored) {
            // The process was killed.
        }
        limiter.finish();
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static Duration since(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }
}
