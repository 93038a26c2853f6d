package io.github.scheduledeventsbridge.actionhost;

import io.github.scheduledeventsbridge.action.HostSocketLauncher;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
import io.github.scheduledeventsbridge.command.HostProtocol;
import io.github.scheduledeventsbridge.command.OutputLimiter;
import io.github.scheduledeventsbridge.command.RecordingObserver;
import io.github.scheduledeventsbridge.testing.AcceptingActionSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The action host as the package runs it, without systemd: a Unix-domain socket whose every connection starts
 * {@code java ... ActionHost} as a real process (Accept=yes emulated), and the agent's side of it, the host-socket
 * launcher.
 */
class ActionHostTest {

    @TempDir
    Path work;
    private AcceptingActionSocket socket;
    private HostSocketLauncher launcher;

    @BeforeEach
    void listen() throws Exception {
        // The host is started with a secret in its own environment: a command must never see it.
        socket = AcceptingActionSocket.listen(work.resolve("action.sock"),
                Map.of("BRIDGE_WEBHOOK_SECRET", "must-not-leak", "SOMETHING_ELSE", "not-passed-either"));
        launcher = new HostSocketLauncher(socket.path());
    }

    @AfterEach
    void close() throws Exception {
        launcher.stop();
        socket.close();
    }

    private static CommandSpec spec(String command, Map<String, String> env, byte[] stdin, Duration timeout) {
        return new CommandSpec(List.of("/bin/sh", "-c", command), env, stdin, timeout, "prepare TEST");
    }

    @Test
    void aCommandRunsInTheHostWithAMinimalEnvironmentItsInputAndItsOutputComesBack() throws Exception {
        Path env = work.resolve("env");
        RecordingObserver seen = new RecordingObserver();
        CommandResult result = launcher.run(spec("env > " + env + "; cat; echo; echo second line; exit 3",
                Map.of("SEB_EVENT_ID", "E1", "SEB_DESCRIPTION", "with\u0000a NUL"),
                "{\"the\":\"cloud event\"}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(30)), seen);

        assertThat(result.outcome()).isEqualTo("failed");
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(seen.lines).containsExactly("{\"the\":\"cloud event\"}", "second line");
        assertThat(seen.pids).hasSize(1);
        List<String> variables = Files.readAllLines(env);
        assertThat(variables).contains("SEB_EVENT_ID=E1", "SEB_DESCRIPTION=with a NUL", "LANG=C.UTF-8")
                .anyMatch(v -> v.startsWith("PATH=/usr/local/sbin:"))
                .noneMatch(v -> v.contains("must-not-leak") || v.startsWith("SOMETHING_ELSE"));
        assertThat(socket.hosts()).hasSize(1);
        assertThat(socket.hosts().get(0).waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(socket.hosts().get(0).exitValue()).isZero();
    }

    @Test
    void theHostKillsTheWholeTreeAtTheTimeoutAndSaysTimedOut() throws Exception {
        Path pid = work.resolve("child.pid");
        RecordingObserver seen = new RecordingObserver();
        CommandResult result = launcher.run(spec("sleep 300 & echo $! > " + pid + "; (sleep 301 &); wait", Map.of(),
                new byte[0], Duration.ofMillis(1500)), seen);

        assertThat(result.outcome()).isEqualTo("timed-out");
        assertThat(result.exitCode()).isNull();
        long child = Long.parseLong(Files.readString(pid).trim());
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().orElse("").contains("sleep 301")));
    }

    @Test
    void whenTheAgentGoesAwayTheHostKillsItsCommandAndExits() throws Exception {
        Path pid = work.resolve("command.pid");
        RecordingObserver seen = new RecordingObserver();
        CompletableFuture<CommandResult> running = CompletableFuture.supplyAsync(() -> {
            try {
                return launcher.run(spec("echo $$ > " + pid + "; sleep 300", Map.of(), new byte[0],
                        Duration.ofMinutes(10)), seen);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(pid) && Files.size(pid) > 0);
        long command = Long.parseLong(Files.readString(pid).trim());
        assertThat(ProcessHandle.of(command)).isPresent();

        launcher.stop();

        Process host = socket.hosts().get(0);
        assertThat(host.waitFor(15, TimeUnit.SECONDS)).as("the host exits").isTrue();
        assertThat(host.exitValue()).isEqualTo(ActionHost.CONNECTION_LOST);
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(command).map(p -> !p.isAlive()).orElse(true));
        assertThat(running).failsWithin(Duration.ofSeconds(10));
    }

    @Test
    void aRequestWithAnythingButSebVariablesIsRefusedAndNothingRuns() throws Exception {
        Path ran = work.resolve("ran");
        CommandResult result = launcher.run(spec("touch " + ran, Map.of("LD_PRELOAD", "/tmp/evil.so"), new byte[0],
                Duration.ofSeconds(30)), new RecordingObserver());

        assertThat(result.outcome()).isEqualTo("failed");
        assertThat(result.failure()).contains("ended without an outcome");
        assertThat(ran).doesNotExist();
        Process host = socket.hosts().get(0);
        assertThat(host.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(host.exitValue()).isEqualTo(ActionHost.BAD_REQUEST);
    }

    @Test
    void noHostListeningIsAFailureThatSaysWhere() throws Exception {
        HostSocketLauncher nowhere = new HostSocketLauncher(work.resolve("missing.sock"));
        CommandResult result = nowhere.run(spec("true", Map.of(), new byte[0], Duration.ofSeconds(5)), new RecordingObserver());
        assertThat(result.outcome()).isEqualTo("failed");
        assertThat(result.failure()).contains("cannot reach the action host at " + work.resolve("missing.sock"));
    }

    @Test
    void outputBeyondTheBoundsIsDroppedInTheHostAndCounted() throws Exception {
        RecordingObserver seen = new RecordingObserver();
        CommandResult result = launcher.run(spec("yes x | head -n 200000", Map.of(), new byte[0],
                Duration.ofSeconds(60)), seen);
        assertThat(result.succeeded()).isTrue();
        assertThat(seen.lines.size()).isBetween(OutputLimiter.BURST_LINES, OutputLimiter.BURST_LINES + 500);
        assertThat(seen.droppedBytes).isGreaterThan(300_000);
    }

    @Test
    void anEventIdCannotForgeLinesOfTheHostsJournal() throws Exception {
        String forged = "E1 (timeout 1 ms)\naction host: prepare E2 succeeded (exit code 0)\r\u001b[2J\u0085\u2028";
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        // A day: the host's own deadline never ends this test's JVM.
        HostProtocol.writeRequest(request, new CommandSpec(List.of("/bin/sh", "-c", "true"),
                Map.of("SEB_EVENT_ID", forged), new byte[0], Duration.ofDays(1), "prepare " + forged));
        // The agent's end of the connection: its request, then open (the host ends what runs at its end).
        InputStream connection = new SequenceInputStream(new ByteArrayInputStream(request.toByteArray()),
                new InputStream() {
                    @Override
                    public int read() {
                        while (true) {
                            LockSupport.park(this);
                        }
                    }
                });
        ByteArrayOutputStream journal = new ByteArrayOutputStream();

        int code = new ActionHost(connection, new ByteArrayOutputStream(),
                new PrintStream(journal, true, StandardCharsets.UTF_8)).serve();

        assertThat(code).isEqualTo(ActionHost.OK);
        List<String> lines = journal.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).as(journal.toString(StandardCharsets.UTF_8)).containsExactly(
                "action host: running prepare E1 (timeout 1 ms)\\naction host: prepare E2 succeeded (exit code 0)"
                        + "\\r\\u001b[2J\\u0085\\u2028 (timeout 86400000 ms)",
                "action host: prepare E1 (timeout 1 ms)\\naction host: prepare E2 succeeded (exit code 0)"
                        + "\\r\\u001b[2J\\u0085\\u2028 succeeded (exit code 0)");
    }
}
