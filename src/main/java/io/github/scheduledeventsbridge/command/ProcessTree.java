package io.github.scheduledeventsbridge.command;

import io.github.scheduledeventsbridge.platform.Platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A command and everything it started. Where {@code setsid} exists the command leads a session (and process group)
 * of its own, so a whole group is killed at once, double-forked daemons included; the JDK's list of descendants
 * covers the rest (and is all there is on Windows). A process that starts a session of its own again escapes both:
 * only a cgroup (the action host's unit) holds that.
 */
public final class ProcessTree {

    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Path PROC = Path.of("/proc");

    private ProcessTree() {
    }

    /** True when commands get a session of their own (their pid is then their process group id). */
    public static boolean ownSessions() {
        return ownSessions(Platform.current());
    }

    public static boolean ownSessions(Platform platform) {
        return !platform.windows() && Files.isExecutable(SETSID);
    }

    public static List<String> inOwnSession(List<String> argv) {
        if (!ownSessions()) {
            return argv;
        }
        List<String> wrapped = new ArrayList<>(argv.size() + 1);
        wrapped.add(SETSID.toString());
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Kills the process, its process group when it leads one, and every descendant; waits a little for the process. */
    public static void kill(ProcessHandle process, boolean groupLeader) {
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> below = process.descendants().toList();
            if (groupLeader) {
                signalGroup(process.pid());
            }
            below.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            if (!process.isAlive() && below.stream().noneMatch(ProcessHandle::isAlive)) {
                break;
            }
        }
        try {
            process.onExit().get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Still there after SIGKILL (uninterruptible sleep): nothing more can be done from here.
        }
    }

    /**
     * A command the previous run of the agent left running (kill -9): it and the rest of its group are ended, when
     * the process running as its pid now is provably the same one ({@link ProcessIdentity}) and, where its
     * environment can be read, carries the command's {@code variable=value} (its run tag); a pid reused by another
     * process, in a group of its own or not, is left alone. Returns the process that was ended, if any.
     */
    public static Optional<ProcessHandle> killLeftover(ProcessIdentity leftover, String variable, String value) {
        Optional<ProcessHandle> leader = leftover.live().filter(p -> !lacks(p.pid(), variable, value));
        leader.ifPresent(p -> kill(p, ownSessions()));
        return leader;
    }

    /** True when the process's environment can be read (Linux) and has no {@code variable=value}. */
    private static boolean lacks(long pid, String variable, String value) {
        if (!readsProc(Platform.current())) {
            return false;
        }
        try {
            byte[] environ = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
            return !holds(environ, (variable + "=" + value).getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            // Another user's process: the start time, boot and namespace alone prove it.
            return false;
        }
    }

    /**
     * Waits until the process has exited (an action host ends its own leftovers; the agent may not kill another
     * user's). Exited counts, reaped or not: a zombie whose new parent is slow to reap it is not still running.
     */
    public static boolean awaitGone(ProcessHandle process, java.time.Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (process.isAlive() && !ProcessIdentity.exited(process.pid())) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                process.onExit().get(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 200), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // Looked at again: a zombie never completes onExit for a process that is not a child.
            }
        }
        return true;
    }

    /**
     * Linux: the live processes whose environment holds {@code variable=value} (a command and what it started inherit
     * it), zombies (exited, not yet reaped) left out. Others' processes cannot be read and are skipped; without /proc
     * (Windows) there are none.
     */
    public static List<ProcessHandle> withVariable(String variable, String value) {
        return withVariable(Platform.current(), variable, value);
    }

    public static List<ProcessHandle> withVariable(Platform platform, String variable, String value) {
        if (!readsProc(platform)) {
            return List.of();
        }
        byte[] wanted = (variable + "=" + value).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses().filter(p -> p.pid() != self)
                .filter(p -> holds(readEnviron(p.pid()), wanted))
                .filter(p -> !ProcessIdentity.exited(p.pid())).toList();
    }

    /** Its environment, empty when it cannot be read. */
    private static byte[] readEnviron(long pid) {
        try {
            return Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | RuntimeException e) {
            return new byte[0];
        }
    }

    private static boolean holds(byte[] bytes, byte[] wanted) {
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == 0) {
                if (java.util.Arrays.equals(bytes, start, i, wanted, 0, wanted.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    private static boolean readsProc(Platform platform) {
        return ProcessIdentity.readsProc(platform);
    }

    private static void signalGroup(long pgid) {
        try {
            Process kill = new ProcessBuilder(killProgram(), "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // No kill program: the descendants are still killed one by one.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String killProgram() {
        for (String candidate : List.of("/bin/kill", "/usr/bin/kill")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "kill";
    }
}
