package io.github.scheduledeventsbridge.command;

import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The bounded runner with real processes: hostile input and output, odd environments, trees that must die. */
class BoundedCommandTest {

    @TempDir
    Path work;
    private final RunningProcesses running = new RunningProcesses();
    private final RecordingObserver observer = new RecordingObserver();
    private final List<String> lines = observer.lines;

    private CommandResult run(String command, Map<String, String> env, byte[] stdin, Duration timeout)
            throws InterruptedException {
        return BoundedCommand.run(new CommandSpec(List.of("/bin/sh", "-c", command), env, stdin, timeout, "test"),
                BoundedCommand.Environment.INHERITED_WITHOUT_BRIDGE, observer, running);
    }

    @Test
    void aCommandThatNeverReadsALargeInputStillTimesOut() {
        byte[] input = new byte[4 * 1024 * 1024];
        CompletableFuture<CommandResult> result = CompletableFuture.supplyAsync(() -> {
            try {
                return run("sleep 300", Map.of(), input, Duration.ofMillis(1500));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(result).succeedsWithin(Duration.ofSeconds(20))
                .satisfies(r -> assertThat(r.outcome()).isEqualTo("timed-out"));
        assertThat(running.isEmpty()).isTrue();
    }

    @Test
    void controlCharactersAndNulInTheEnvironmentBecomeSpacesAndTheCommandRuns() throws Exception {
        Path seen = work.resolve("seen");
        CommandResult result = run("printf '%s' \"$SEB_DESCRIPTION\" > " + seen,
                Map.of("SEB_DESCRIPTION", "a\u0000b\nc\u001b[31md\u2028e"), new byte[0], Duration.ofSeconds(30));
        assertThat(result.succeeded()).isTrue();
        assertThat(Files.readString(seen)).isEqualTo("a b c [31md e");
    }

    private static final Platform LINUX = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of());
    private static final Platform WINDOWS = Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(), Map.of());

    @Test
    void aProgramMissingFromThePathIsRefusedBeforeStartOnLinuxAndLeftToWindowsToFind() {
        assertThat(BoundedCommand.findable("sh", "/nowhere:/bin", LINUX)).isTrue();
        assertThat(BoundedCommand.findable("no-such-program", "/bin:/usr/bin", LINUX)).isFalse();
        assertThat(BoundedCommand.findable("no-such-program", "/bin:/usr/bin", WINDOWS)).as("PATHEXT, System32").isTrue();
        assertThat(BoundedCommand.findable(work.resolve("no-such-shell").toString(), "/bin", WINDOWS))
                .as("a path is checked everywhere").isFalse();
    }

    @Test
    void onWindowsCommandsGetNoSessionOfTheirOwnAndNoProcIsRead() throws Exception {
        assertThat(ProcessTree.ownSessions(LINUX)).as("this machine has setsid").isTrue();
        assertThat(ProcessTree.ownSessions(WINDOWS)).isFalse();
        String tag = UUID.randomUUID().toString();
        ProcessBuilder builder = new ProcessBuilder("sleep", "300");
        builder.environment().put("SEB_TEST_TAG", tag);
        Process tagged = builder.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> ProcessTree.withVariable(LINUX, "SEB_TEST_TAG", tag)
                    .stream().anyMatch(p -> p.pid() == tagged.pid()));
            assertThat(ProcessTree.withVariable(WINDOWS, "SEB_TEST_TAG", tag)).isEmpty();
        } finally {
            tagged.destroyForcibly().waitFor();
        }
    }

    @Test
    void aProgramThatCannotBeStartedIsAFailureWithItsReason() throws Exception {
        CommandResult result = BoundedCommand.run(new CommandSpec(List.of(work.resolve("no-such-shell").toString(), "-c",
                        "true"), Map.of(), new byte[0], Duration.ofSeconds(5), "test"),
                BoundedCommand.Environment.INHERITED_WITHOUT_BRIDGE, observer, running);
        assertThat(result.outcome()).isEqualTo("failed");
        assertThat(result.exitCode()).isNull();
        assertThat(result.failure()).startsWith("cannot be started: ");
    }

    @Test
    void atTheTimeoutChildrenAndDoubleForkedOrphansOfTheCommandDieWithIt() throws Exception {
        Path pids = work.resolve("pids");
        CommandResult result = run("sleep 300 & echo $! >> " + pids + "; (sleep 300 & echo $! >> " + pids + "); wait",
                Map.of(), new byte[0], Duration.ofMillis(1500));
        assertThat(result.outcome()).isEqualTo("timed-out");
        List<Long> left = Files.readAllLines(pids).stream().map(String::trim).map(Long::parseLong).toList();
        assertThat(left).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> left.stream()
                .allMatch(pid -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true)));
    }

    @Test
    void onceClosedNoCommandStarts() {
        running.close(Duration.ZERO);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run("touch " + work.resolve("ran"), Map.of(),
                new byte[0], Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
        assertThat(work.resolve("ran")).doesNotExist();
    }

    @Test
    void aLineOfFortyFiveMegabytesWithoutNewlineIsCutAndCounted() throws Exception {
        CommandResult result = run("head -c 45000000 /dev/zero | tr '\\0' x", Map.of(), new byte[0],
                Duration.ofSeconds(60));
        assertThat(result.succeeded()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> observer.droppedBytes > 0);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).hasSizeLessThan(OutputLimiter.MAX_LINE_BYTES + 100);
        assertThat(observer.droppedBytes).isEqualTo(45_000_000 - OutputLimiter.MAX_LINE_BYTES);
    }
}
