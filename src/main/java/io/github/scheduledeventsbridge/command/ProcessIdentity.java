package io.github.scheduledeventsbridge.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.platform.Platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Which process a command ran as, written down while it runs so that a restart after kill -9 can end it, and never
 * another process that has its pid since (pids are reused: after a reboot, in a container started again, or after a
 * wrap). Linux: the pid, its own start time in clock ticks since boot ({@code /proc/PID/stat}), the boot id and the
 * pid namespace the pid was seen in; all four must match, and the process must not be a zombie (one that has
 * exited). Without /proc (Windows): the pid and its creation time to the millisecond.
 *
 * @param startMillis the JDK's start time (all platforms; what Windows compares)
 * @param startTicks  Linux: the 22nd field of /proc/PID/stat, null elsewhere or when it could not be read
 * @param bootId      Linux: /proc/sys/kernel/random/boot_id when the pid was written down
 * @param pidNamespace Linux: the agent's pid namespace ({@code pid:[inode]}) when the pid was written down
 */
public record ProcessIdentity(long pid, long startMillis, Long startTicks, String bootId, String pidNamespace) {

    private static final Path PROC = Path.of("/proc");

    /** The process running as {@code pid} now; {@code fallbackMillis} when the JDK cannot tell its start time. */
    public static ProcessIdentity of(long pid, long fallbackMillis) {
        long millis = ProcessHandle.of(pid).flatMap(p -> p.info().startInstant())
                .map(java.time.Instant::toEpochMilli).orElse(fallbackMillis);
        if (!readsProc(Platform.current())) {
            return new ProcessIdentity(pid, millis, null, null, null);
        }
        Stat stat = Stat.read(pid);
        return new ProcessIdentity(pid, millis, stat == null ? null : stat.startTicks(), currentBootId(),
                currentPidNamespace());
    }

    /**
     * The process, when the one running as this pid now is provably this one and has not exited; otherwise empty
     * (gone, a zombie, another boot or pid namespace, another start time, or identity not provable: never a guess).
     */
    public Optional<ProcessHandle> live() {
        if (readsProc(Platform.current())) {
            if (startTicks == null || bootId == null || pidNamespace == null
                    || !bootId.equals(currentBootId()) || !pidNamespace.equals(currentPidNamespace())) {
                return Optional.empty();
            }
            Stat now = Stat.read(pid);
            if (now == null || now.exited() || now.startTicks() != startTicks) {
                return Optional.empty();
            }
            return ProcessHandle.of(pid);
        }
        return ProcessHandle.of(pid).filter(p -> p.info().startInstant()
                .map(s -> s.toEpochMilli() == startMillis).orElse(false));
    }

    /** Its fields in a step of actions.log or an entry of actions.json. */
    public void writeTo(ObjectNode node) {
        node.put("pid", pid).put("pidStartMillis", startMillis);
        if (startTicks != null) {
            node.put("pidStartTicks", startTicks);
        }
        if (bootId != null) {
            node.put("bootId", bootId);
        }
        if (pidNamespace != null) {
            node.put("pidNamespace", pidNamespace);
        }
    }

    /** What {@link #writeTo} wrote, or null; a file from before these fields were kept has pid and millis only. */
    public static ProcessIdentity readFrom(JsonNode node) {
        if (!node.hasNonNull("pid")) {
            return null;
        }
        JsonNode millis = node.hasNonNull("pidStartMillis") ? node.get("pidStartMillis") : node.path("since");
        return new ProcessIdentity(node.get("pid").asLong(), millis.asLong(),
                node.hasNonNull("pidStartTicks") ? node.get("pidStartTicks").asLong() : null,
                node.hasNonNull("bootId") ? node.get("bootId").asText() : null,
                node.hasNonNull("pidNamespace") ? node.get("pidNamespace").asText() : null);
    }

    /** True when the process running as {@code pid} has exited and waits to be reaped (a zombie), or is gone. */
    public static boolean exited(long pid) {
        if (!readsProc(Platform.current())) {
            return ProcessHandle.of(pid).isEmpty();
        }
        Stat stat = Stat.read(pid);
        return stat == null || stat.exited();
    }

    public static boolean readsProc(Platform platform) {
        return !platform.windows() && Files.isDirectory(PROC);
    }

    public static String currentBootId() {
        try {
            return Files.readString(PROC.resolve("sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    public static String currentPidNamespace() {
        try {
            return Files.readSymbolicLink(PROC.resolve("self/ns/pid")).toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The fields of /proc/PID/stat that matter here. */
    public record Stat(char state, long startTicks) {

        /** Z (zombie) and X (dead): exited, only not reaped yet. */
        public boolean exited() {
            return state == 'Z' || state == 'X';
        }

        public static Stat read(long pid) {
            try {
                String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
                // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so count from the last ')'.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
                return new Stat(fields[0].charAt(0), Long.parseLong(fields[19]));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
