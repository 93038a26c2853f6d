package io.github.scheduledeventsbridge.testing;

import org.awaitility.Awaitility;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real pid reuse (Linux, as root): starts a stranger, {@code sleep}, that gets a given pid which no process holds
 * now, in a session and process group of its own, by writing the pid before it to
 * {@code /proc/sys/kernel/ns_last_pid} just before the fork. Other processes of the machine may take the pid first:
 * tried again until it is had.
 */
public final class PidReuse {

    private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");
    private static final int ATTEMPTS = 500;

    private PidReuse() {
    }

    /** The stranger, running as {@code pid} and leading its own process group; end it with destroyForcibly. */
    public static ProcessHandle strangerAs(long pid) throws IOException, InterruptedException {
        if (!Files.isWritable(NS_LAST_PID)) {
            throw new IllegalStateException("this test reuses a pid for real: it runs as root (writes " + NS_LAST_PID + ")");
        }
        // A group still named after the pid (what the old command started, ending) would make setsid fail.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> groupOf(p.pid()) == pid));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (ProcessHandle.of(pid).isPresent()) {
                throw new IllegalStateException("pid " + pid + " is taken already");
            }
            // One shell writes ns_last_pid and forks at once: the smallest window for another fork to come between.
            Process shell = new ProcessBuilder("bash", "-c", "echo $(( $1 - 1 )) > " + NS_LAST_PID
                    + " && { setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!; }", "pid-reuse", Long.toString(pid))
                    .redirectErrorStream(true).start();
            String out = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            shell.waitFor(30, TimeUnit.SECONDS);
            long got = Long.parseLong(out);
            if (got == pid) {
                // The forked shell turns into setsid, which makes the group and turns into sleep.
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> processGroup(pid) == pid
                        && ProcessHandle.of(pid).flatMap(p -> p.info().command()).orElse("").endsWith("sleep"));
                return ProcessHandle.of(pid).orElseThrow();
            }
            ProcessHandle.of(got).ifPresent(ProcessHandle::destroyForcibly);
        }
        throw new IllegalStateException("pid " + pid + " was taken by others " + ATTEMPTS + " times");
    }

    private static long groupOf(long pid) {
        try {
            return processGroup(pid);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The process group of a live process, from /proc/PID/stat. */
    public static long processGroup(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
    }
}
