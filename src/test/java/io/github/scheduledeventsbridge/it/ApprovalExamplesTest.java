package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.simulator().approvalPort(SECRET)
            .with("bridge.simulator.speed", "10") // the Freezes stay Scheduled for 90 s
            .with("bridge.simulator.scenarios", "freeze,user-reboot")
            .with("bridge.simulator.loop", "false");
    private ApprovalClient client;
    private String url;

    @BeforeEach
    void start() throws Exception {
        fixture.start();
        client = fixture.approvals();
        url = "http://127.0.0.1:" + fixture.approvalPort();
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
        assertThat(approve.errors()).isEqualTo("approve: HTTP 200, approved\n");
        // Once the event started, approving it again is a 409 that says this agent approved it: a success.
        await().atMost(Duration.ofSeconds(10)).until(() -> !isScheduled(pending));
        Result again = bash("bin/approve " + pending);
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(JSON.readTree(again.output()).path("error").asText()).isEqualTo("already approved by this agent: " + pending);
        assertThat(again.errors()).startsWith("approve: HTTP 409, already approved by this agent");
        Result unknown = bash("bin/approve 00000000-0000-0000-0000-000000000000");
        assertThat(unknown.exit()).as(unknown.toString()).isEqualTo(1);
        assertThat(unknown.output()).contains("\"error\"");
        assertThat(unknown.errors()).isEqualTo("approve: HTTP 404, refused\n");
        assertThat(bash("BRIDGE_APPROVAL_SECRET=wrong-secret-wrong-secret-wrong-secret bin/approve --list").exit()).isEqualTo(1);
    }

    /**
     * The connection churn a busy port sees: the agent approves, but the answer never reaches bin/approve (a proxy
     * in between forwards the first request and closes the client's connection without the answer). bin/approve signs
     * again and retries; the agent answers 409 "already approved by this agent", which bin/approve reports as success,
     * and IMDS got the approval once.
     */
    @Test
    void binApproveRetriesAnApprovalWhoseAnswerWasLostAndCountsAlreadyApprovedAsSuccess() throws Exception {
        String pending = await().atMost(Duration.ofSeconds(30)).until(this::scheduledEvent, id -> id != null);
        try (AnswerLosingProxy proxy = new AnswerLosingProxy(Integer.parseInt(url.substring(url.lastIndexOf(':') + 1)), 1)) {
            Result approve = bash("APPROVAL_URL=http://127.0.0.1:" + proxy.port() + " bin/approve " + pending);
            assertThat(approve.exit()).as(approve.toString()).isZero();
            assertThat(proxy.connections()).as("the lost attempt and the retry").isEqualTo(2);
            assertThat(approve.errors()).as(approve.toString())
                    .contains("approve: no answer (curl exit 52), attempt 1 of 5; sending again, signed anew, in 1 s")
                    .contains("approve: HTTP 409, already approved by this agent");
            assertThat(JSON.readTree(approve.output()).path("error").asText()).isEqualTo("already approved by this agent: " + pending);
        }
        try (AnswerLosingProxy silent = new AnswerLosingProxy(1, Integer.MAX_VALUE)) { // nothing ever answers
            Result gaveUp = bash("APPROVAL_ATTEMPTS=2 APPROVAL_URL=http://127.0.0.1:" + silent.port() + " bin/approve " + pending);
            assertThat(gaveUp.exit()).as(gaveUp.toString()).isEqualTo(1);
            assertThat(gaveUp.errors()).contains("after 2 attempt(s)");
            assertThat(silent.connections()).isEqualTo(2);
        }
    }

    /**
     * Every program the clients start is recorded with its arguments (a shim for each name on the PATH writes them,
     * then runs the real one): what another local user would read in /proc/PID/cmdline. The secret is in none.
     */
    @Test
    void neitherBinApproveNorTheSnippetPutsTheSecretOnACommandLine() throws Exception {
        Path argv = fixture.state().resolve("argv.log");
        String path = shimEveryCommand(fixture.state().resolve("shims"), argv);
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

    /** Standard output (the agent's JSON answer) and standard error (what bin/approve says about it). */
    private record Result(int exit, String output, String errors) {
    }

    private Result bash(String script) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", script);
        builder.environment().put("BRIDGE_APPROVAL_SECRET", SECRET);
        builder.environment().put("APPROVAL_URL", url);
        Path errors = Files.createTempFile(fixture.state(), "stderr", ".txt");
        builder.redirectError(errors.toFile());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), output, Files.readString(errors));
    }

    /**
     * A TCP proxy in front of the approval port that forwards each of the first {@code losing} connections' request,
     * reads the agent's answer and closes the client's connection without it; later connections pass through.
     */
    private static final class AnswerLosingProxy implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicInteger connections = new AtomicInteger();
        private final Thread acceptor;

        AnswerLosingProxy(int target, int losing) throws IOException {
            acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket client = server.accept()) {
                        int n = connections.incrementAndGet();
                        client.setSoTimeout(10_000);
                        byte[] request = readRequest(client.getInputStream());
                        try (Socket agent = new Socket(InetAddress.getLoopbackAddress(), target)) {
                            agent.setSoTimeout(10_000);
                            agent.getOutputStream().write(request);
                            byte[] answer = agent.getInputStream().readAllBytes(); // the agent closes after answering
                            if (n > losing) {
                                client.getOutputStream().write(answer);
                            }
                        } catch (IOException noAgent) {
                            // nothing listens there: the client's connection is closed without an answer
                        }
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "answer-losing-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int connections() {
            return connections.get();
        }

        /** Headers to the blank line, then Content-Length bytes of body. */
        private static byte[] readRequest(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("closed before the request was whole");
                }
                head.write(b);
            }
            Matcher length = Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(head.toString(StandardCharsets.ISO_8859_1));
            if (length.find()) {
                head.write(in.readNBytes(Integer.parseInt(length.group(1))));
            }
            return head.toByteArray();
        }

        @Override
        public void close() throws Exception {
            server.close();
            acceptor.join(10_000);
        }
    }
}
