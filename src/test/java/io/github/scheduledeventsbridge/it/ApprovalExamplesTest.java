package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The documented approval clients, run as printed with bash, curl and python3 against the built-in simulator:
 * the snippet in config/approval.example.properties, the same one in docs/approvals.md, and bin/approve. None of them
 * puts the secret on a command line.
 */
class ApprovalExamplesTest {

    private static final String SECRET = "examples-secret-for-tests-0123456789abcdef";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;
    private InProcessAgent agent;
    private ApprovalClient client;
    private String url;

    @BeforeEach
    void start() throws Exception {
        int port = FreePorts.unused();
        agent = InProcessAgent.builder(state)
                .with("bridge.simulator.enabled", "true")
                .with("bridge.simulator.speed", "10") // the Freezes stay Scheduled for 90 s
                .with("bridge.simulator.scenarios", "freeze,user-reboot")
                .with("bridge.simulator.loop", "false")
                .with("bridge.approval.secret", SECRET)
                .with("bridge.approval.port", Integer.toString(port))
                .start();
        client = new ApprovalClient(port, SECRET);
        url = "http://127.0.0.1:" + port;
    }

    @AfterEach
    void stop() {
        agent.close();
    }

    @Test
    void theExampleAndDocumentedSnippetsAreTheSameAndApproveAPendingEvent() throws Exception {
        List<String> example = Files.readAllLines(Path.of("config/approval.example.properties")).stream()
                .dropWhile(l -> !l.contains("never put on a command line, where other local users could read it):")).skip(1)
                .takeWhile(l -> l.startsWith("#   ")).map(l -> l.substring(4)).toList();
        String page = Files.readString(Path.of("docs/approvals.md"));
        int fence = page.indexOf("```bash\nurl=http://localhost:8089");
        assertThat(fence).as("the curl snippet in docs/approvals.md").isNotNegative();
        List<String> documented = page.substring(fence + 8, page.indexOf("```", fence + 8)).lines().toList();
        assertThat(example).hasSize(4).isEqualTo(documented);
        assertThat(example.get(0)).startsWith("url=http://localhost:8089; id=");

        String pending = await().atMost(Duration.ofSeconds(30)).until(this::scheduledEvent, id -> id != null);
        // Only the first line's two values are set for this agent; the other lines run exactly as printed.
        List<String> script = new ArrayList<>(example);
        script.set(0, "url=" + url + "; id=" + pending);
        Result result = bash(String.join("\n", script) + "\n");
        assertThat(result.output()).as(result.toString()).contains("\"approved\"").contains(pending);
        await().atMost(Duration.ofSeconds(10)).until(() -> !pending.equals(scheduledEvent()));
    }

    @Test
    void binApproveListsThenApproves() throws Exception {
        String pending = await().atMost(Duration.ofSeconds(30)).until(this::scheduledEvent, id -> id != null);
        Result list = bash("bin/approve --list");
        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(JSON.readTree(list.output()).path("Events").toString()).contains(pending);

        Result approve = bash("bin/approve " + pending);
        assertThat(approve.exit()).as(approve.toString()).isZero();
        assertThat(approve.output()).contains(pending);
        // Once the agent's own document shows the event started, approving it again is refused (409).
        await().atMost(Duration.ofSeconds(10)).until(() -> !isScheduled(pending));
        Result again = bash("bin/approve " + pending);
        assertThat(again.exit()).as("no longer Scheduled").isEqualTo(1);
        assertThat(again.output()).contains("\"error\"");
        assertThat(bash("BRIDGE_APPROVAL_SECRET=wrong-secret-wrong-secret-wrong-secret bin/approve --list").exit()).isEqualTo(1);
    }

    /**
     * Every program the clients start is recorded with its arguments (a shim for each name on the PATH writes them,
     * then runs the real one): what another local user would read in /proc/PID/cmdline. The secret is in none.
     */
    @Test
    void neitherBinApproveNorTheSnippetPutsTheSecretOnACommandLine() throws Exception {
        Path argv = state.resolve("argv.log");
        String path = shimEveryCommand(state.resolve("shims"), argv);
        String pending = await().atMost(Duration.ofSeconds(30)).until(this::scheduledEvent, id -> id != null);
        List<String> snippet = new ArrayList<>(Files.readAllLines(Path.of("config/approval.example.properties")).stream()
                .dropWhile(l -> !l.contains("never put on a command line, where other local users could read it):")).skip(1)
                .takeWhile(l -> l.startsWith("#   ")).map(l -> l.substring(4)).toList());
        snippet.set(0, "url=" + url + "; id=" + pending);

        Result list = bash("PATH=" + path + " bin/approve --list");
        Result snippetRun = bash("export PATH=" + path + "\n" + String.join("\n", snippet) + "\n");
        Result approve = bash("PATH=" + path + " bin/approve " + pending);

        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(snippetRun.output()).as(snippetRun.toString()).contains(pending);
        assertThat(approve.output()).as(approve.toString()).contains(pending);
        List<String> commandLines = Files.readAllLines(argv);
        assertThat(commandLines).as("the shims saw the clients' programs")
                .anyMatch(l -> l.startsWith("curl ")).anyMatch(l -> l.startsWith("python3 ")).anyMatch(l -> l.startsWith("od "));
        assertThat(commandLines).allSatisfy(line -> assertThat(line).doesNotContain(SECRET));
    }

    /** A directory of shims, one per program name on the PATH; returns the PATH that puts them first. */
    private static String shimEveryCommand(Path shims, Path argv) throws IOException {
        Files.createDirectories(shims);
        String realPath = System.getenv("PATH");
        Path shim = shims.resolve(".record-and-run");
        // Shell built-ins only (no program of its own), and the PATH left as it is, so that what the real program
        // starts goes through the shims too.
        Files.writeString(shim, "#!/bin/sh\nname=${0##*/}\nprintf '%s\\n' \"$name $*\" >> '" + argv + "'\n"
                + "real='" + realPath + "'\nIFS=:\nfor dir in $real; do\n"
                + "  if [ -x \"$dir/$name\" ] && [ ! -d \"$dir/$name\" ]; then IFS=' '; exec \"$dir/$name\" \"$@\"; fi\n"
                + "done\nexit 127\n");
        shim.toFile().setExecutable(true);
        for (String directory : realPath.split(":")) {
            File[] programs = new File(directory).listFiles(File::canExecute);
            for (File program : programs == null ? new File[0] : programs) {
                Path link = shims.resolve(program.getName());
                if (!program.isDirectory() && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, shim);
                }
            }
        }
        return shims + ":" + realPath;
    }

    private boolean isScheduled(String eventId) throws IOException {
        for (JsonNode event : JSON.readTree(client.events(true).body()).path("Events")) {
            if (event.path("EventId").asText().equals(eventId)) {
                return event.path("EventStatus").asText().equals("Scheduled");
            }
        }
        return false;
    }

    private String scheduledEvent() throws IOException {
        JsonNode events = JSON.readTree(client.events(true).body()).path("Events");
        for (JsonNode event : events) {
            if (event.path("EventStatus").asText().equals("Scheduled")) {
                return event.path("EventId").asText();
            }
        }
        return null;
    }

    private record Result(int exit, String output) {
    }

    private Result bash(String script) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
        builder.environment().put("BRIDGE_APPROVAL_SECRET", SECRET);
        builder.environment().put("APPROVAL_URL", url);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), output);
    }
}
