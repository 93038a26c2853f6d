package io.github.scheduledeventsbridge.action;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One operator command: {@code /bin/sh -c} in a session of its own ({@code setsid}), input on stdin, output lines
 * to the log, and past the timeout the whole session killed, grandchildren included.
 */
final class ShellCommand {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    /** {@code outcome} is succeeded, failed or timed-out; {@code exitCode} null when there is none. */
    record Result(String outcome, Integer exitCode, Duration took) {
        boolean succeeded() {
            return outcome.equals("succeeded");
        }
    }

    private ShellCommand() {
    }

    /** Runs it to the end or the timeout; {@code running} holds the process meanwhile (killed when the agent stops). */
    static Result run(String command, Map<String, String> environment, byte[] input, Duration timeout, String label,
                      Set<Process> running) throws InterruptedException {
        List<String> argv = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            argv.add(SETSID.toString());
        }
        argv.addAll(List.of("/bin/sh", "-c", command));
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        // The agent's own configuration (secrets included) is not the command's business.
        builder.environment().keySet().removeIf(k -> k.startsWith("BRIDGE_"));
        builder.environment().putAll(environment);
        long started = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            LOG.error("[{}] cannot be started: {}", label, e.getMessage());
            return new Result("failed", null, Duration.ofNanos(System.nanoTime() - started));
        }
        running.add(process);
        try {
            Thread reader = new Thread(() -> log(process, label), "bridge-action-output");
            reader.setDaemon(true);
            reader.start();
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(input);
            } catch (IOException ignored) {
                // The command does not read its input: fine.
            }
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                int exit = process.exitValue();
                return new Result(exit == 0 ? "succeeded" : "failed", exit, Duration.ofNanos(System.nanoTime() - started));
            }
            killTree(process);
            return new Result("timed-out", null, Duration.ofNanos(System.nanoTime() - started));
        } finally {
            running.remove(process);
        }
    }

    private static void log(Process process, String label) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                LOG.info("[{}] {}", label, line.length() > 2000 ? line.substring(0, 2000) + "…" : line);
            }
        } catch (IOException ignored) {
            // The process was killed.
        }
    }

    /** The whole session (setsid made the shell its leader, so its pid is the group id), then anything left below. */
    static void killTree(Process process) throws InterruptedException {
        List<ProcessHandle> below = process.descendants().toList();
        try {
            new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            LOG.debug("kill of process group {} failed: {}", process.pid(), e.getMessage());
        }
        below.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
    }
}
