package io.github.scheduledeventsbridge.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example commands the packages install, run by /bin/sh as the agent runs them: environment, CloudEvent on stdin. */
class ExampleActionScriptsTest {

    private static final Path CHECKPOINT = Path.of("config/actions/checkpoint.sh");
    private static final Path DRAIN = Path.of("config/actions/drain-behind-load-balancer.sh");

    private record Run(int exitCode, String output) {
    }

    private static Run run(Path script, Map<String, String> environment, String stdin) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", script.toAbsolutePath().toString()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        try (var in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException refusedBeforeReading) {
            // The script ended without reading its input, as it should for a refused EventId.
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output);
    }

    /** The application's tool, a stand-in: it gets the file to write as its last argument, and notes each call. */
    private static Map<String, String> checkpoint(Path dir, String eventId, Path calls) throws Exception {
        Path tool = calls.resolveSibling("myapp-checkpoint");
        Files.writeString(tool, "#!/bin/sh\necho \"$2\" >> " + calls + "\ntouch \"$2\"\n");
        tool.toFile().setExecutable(true);
        return Map.of("SEB_EVENT_ID", eventId, "SEB_EVENT_TYPE", "Reboot", "CHECKPOINT_DIR", dir.toString(),
                "CHECKPOINT_COMMAND", tool + " --out");
    }

    @Test
    void checkpointKeepsTheEventAndCallsTheApplicationOncePerEvent(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("checkpoints");
        Path calls = tmp.resolve("calls");
        String id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
        Run first = run(CHECKPOINT, checkpoint(dir, id, calls), "{\"id\":\"cloud-event\"}");
        assertThat(first.exitCode()).as(first.output()).isZero();
        assertThat(dir.resolve(id + ".event.json")).hasContent("{\"id\":\"cloud-event\"}");
        assertThat(dir.resolve(id + ".ckpt")).exists();
        Run again = run(CHECKPOINT, checkpoint(dir, id, calls), "{}");
        assertThat(again.exitCode()).isZero();
        assertThat(again.output()).contains("already taken");
        assertThat(Files.readAllLines(calls)).containsExactly(dir.resolve(id + ".ckpt").toString());
    }

    /** The EventId names files: one that is not a GUID could write anywhere the command may. */
    @Test
    void checkpointRefusesAnEventIdThatIsNotAFileNameInItsDirectory(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("a/checkpoints"));
        Path calls = tmp.resolve("calls");
        for (String hostile : new String[] {"../../escaped", "/tmp/x", "..", "", "a b", "ev\nil"}) {
            Run run = run(CHECKPOINT, checkpoint(dir, hostile, calls), "{}");
            assertThat(run.exitCode()).as(hostile + ": " + run.output()).isEqualTo(65);
            assertThat(run.output()).contains("not a GUID");
        }
        try (Stream<Path> written = Files.walk(tmp)) {
            assertThat(written.filter(Files::isRegularFile).filter(f -> !f.endsWith("myapp-checkpoint"))).as("nothing written").isEmpty();
        }
    }

    /**
     * When ss fails the drain command must fail, not report "drained" (an ss stand-in first on the PATH; the drain
     * port is one nothing listens on, so curl is refused at once).
     */
    @Test
    void drainFailsWhenItCannotListTheConnections(@TempDir Path tmp) throws Exception {
        Path ss = tmp.resolve("ss");
        Map<String, String> environment = Map.of("PATH", tmp + ":" + System.getenv("PATH"), "SEB_EVENT_TYPE", "Reboot",
                "SEB_EVENT_ID", "C7061BAC-AFDC-4513-B24B-AA5F13A16123", "SERVICE_PORT", "9", "DRAIN_PORT", "1",
                "PROBE_GRACE_SECONDS", "0");
        Files.writeString(ss, "#!/bin/sh\necho 'Cannot open netlink socket: Address family not supported by protocol' >&2\nexit 1\n");
        ss.toFile().setExecutable(true);
        Run blocked = run(DRAIN, environment, "{}");
        assertThat(blocked.exitCode()).as(blocked.output()).isNotZero();
        assertThat(blocked.output()).doesNotContain("drained");
        Files.writeString(ss, "#!/bin/sh\nexit 0\n");
        Run drained = run(DRAIN, environment, "{}");
        assertThat(drained.exitCode()).as(drained.output()).isZero();
        assertThat(drained.output()).contains("drained: no connection left on port 9");
    }
}
