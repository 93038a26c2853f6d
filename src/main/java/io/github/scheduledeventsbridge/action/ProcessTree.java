package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.platform.Platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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
final class ProcessTree {

    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Path PROC = Path.of("/proc");

    private ProcessTree() {
    }

    /** True when commands get a session of their own (their pid is then their process group id). */
    static boolean ownSessions() {
        return ownSessions(Platform.current());
    }

    static boolean ownSessions(Platform platform) {
        return !platform.windows() && Files.isExecutable(SETSID);
    }

    static List<String> inOwnSession(List<String> argv) {
        if (!ownSessions()) {
            return argv;
        }
        List<String> wrapped = new ArrayList<>(argv.size() + 1);
        wrapped.add(SETSID.toString());
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Kills the process, its process group when it leads one, and every descendant; waits a little for the process. */
    static void kill(ProcessHandle process, boolean groupLeader) {
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
     * A command the previous run of the agent left running (kill -9): it and the rest of its group are ended, if
     * they are still there. The pid counts only with the same start time (a pid can be reused); when the leader has
     * ended, the members of its group that started after it are ended (Linux: from /proc).
     */
    static boolean killLeftover(long pid, long startMillis) {
        Optional<ProcessHandle> leader = ProcessHandle.of(pid).filter(p -> p.info().startInstant()
                .map(s -> Math.abs(s.toEpochMilli() - startMillis) < 1000).orElse(false));
        if (leader.isPresent()) {
            kill(leader.get(), ownSessions());
            return true;
        }
        List<ProcessHandle> members = groupMembers(pid, Instant.ofEpochMilli(startMillis - 1000));
        members.forEach(m -> kill(m, false));
        return !members.isEmpty();
    }

    /** Waits until the leftover is gone (an action host ends its own; the agent may not kill another user's). */
    static boolean awaitGone(long pid, long startMillis, java.time.Duration atMost) {
        Optional<ProcessHandle> leader = ProcessHandle.of(pid).filter(p -> p.info().startInstant()
                .map(s -> Math.abs(s.toEpochMilli() - startMillis) < 1000).orElse(false));
        return leader.isEmpty() || awaitGone(leader.get(), atMost);
    }

    static boolean awaitGone(ProcessHandle process, java.time.Duration atMost) {
        try {
            process.onExit().get(atMost.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    /**
     * Linux: the live processes whose environment holds {@code variable=value} (a command and what it started inherit
     * it). Others' processes cannot be read and are skipped; without /proc (Windows) there are none.
     */
    static List<ProcessHandle> withVariable(String variable, String value) {
        return withVariable(Platform.current(), variable, value);
    }

    static List<ProcessHandle> withVariable(Platform platform, String variable, String value) {
        if (!readsProc(platform)) {
            return List.of();
        }
        byte[] wanted = (variable + "=" + value).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses().filter(p -> p.pid() != self)
                .filter(p -> holds(PROC.resolve(Long.toString(p.pid())).resolve("environ"), wanted)).toList();
    }

    private static boolean holds(Path environ, byte[] wanted) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(environ);
        } catch (IOException | RuntimeException e) {
            return false;
        }
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

    /** Linux: the live processes in process group {@code pgid} that started at or after {@code since}. */
    private static List<ProcessHandle> groupMembers(long pgid, Instant since) {
        if (!readsProc(Platform.current())) {
            return List.of();
        }
        return ProcessHandle.allProcesses().filter(p -> processGroup(p.pid()) == pgid)
                .filter(p -> p.info().startInstant().map(s -> !s.isBefore(since)).orElse(false)).toList();
    }

    private static boolean readsProc(Platform platform) {
        return !platform.windows() && Files.isDirectory(PROC);
    }

    private static long processGroup(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so count from the last ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[2]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
