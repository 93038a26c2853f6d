package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quick start's script as a user runs it: the shipped receiver shows each webhook with its signature checked,
 * their options win, its state goes with the run, and its last line says what the stop kept or deleted.
 */
class TryOnSimulatorIT {

    private static final Pattern RECEIVED = Pattern.compile(
            "\\[webhook-receiver\\] Scheduled \\w+ [0-9A-F-]+, signature valid: \\{\"specversion\":\"1.0\"");
    private static final Pattern STATE_DIR = Pattern.compile("ms \\(api-version .*\\), filter \\S+, state in (\\S+)");

    @TempDir
    Path work;

    @Test
    void theUsersOptionsWinAndTheTemporaryStateGoesWithTheRun() throws Exception {
        Path log = work.resolve("run.log");
        Process script = start(log, "-Dbridge.imds.poll-interval=700");
        try {
            // The receiver the script starts prints each CloudEvent, its signature checked with the run's secret.
            await().atMost(Duration.ofSeconds(90)).until(() -> RECEIVED.matcher(read(log)).find());
            String output = read(log);
            assertThat(output).contains("every 700 ms").contains("on its built-in IMDS simulator")
                    .contains("posted to the receiver at http://127.0.0.1:")
                    .contains("(deleted when it stops, undelivered messages included)").contains("Ctrl-C stops it.")
                    .doesNotContain("refused");
            Matcher m = STATE_DIR.matcher(output);
            assertThat(m.find()).as(output).isTrue();
            Path stateDir = Path.of(m.group(1));
            assertThat(stateDir.getFileName().toString()).startsWith("seb-simulator.");
            assertThat(stateDir).as(output).isDirectory();

            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(stateDir).doesNotExist();
            assertThat(read(log)).contains("try-on-simulator: stopped; deleted its temporary state directory");
            assertThat(script.descendants()).as("the receiver stops with the script").isEmpty();
        } finally {
            stop(script);
        }
    }

    /** Ctrl-C says what it really does: the undelivered messages are deleted with the temporary state, counted. */
    @Test
    void theStopSaysHowManyUndeliveredMessagesItDeleted() throws Exception {
        Path log = work.resolve("run.log");
        int closed = FreePorts.unused();
        Process script = start(log, "-Dbridge.webhook.urls=http://127.0.0.1:" + closed + "/");
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> read(log).contains("is failing"));
            assertThat(read(log)).contains("posted to your -Dbridge.webhook.urls").doesNotContain("[webhook-receiver]");
            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
            Matcher deleted = Pattern.compile("deleted its temporary state directory and the (\\d+) undelivered message")
                    .matcher(read(log));
            assertThat(deleted.find()).as(read(log)).isTrue();
            assertThat(Integer.parseInt(deleted.group(1))).isPositive();
        } finally {
            stop(script);
        }
    }

    /** The receiver refuses what a receiver should: a wrong signature (401), another method (405). */
    @Test
    void theReceiverRefusesAWrongSignature() throws Exception {
        Path portFile = work.resolve("port");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "bin/webhook-receiver.java", "--port", "0", "--port-file",
                portFile.toString()).redirectErrorStream(true).redirectOutput(work.resolve("receiver.log").toFile());
        builder.environment().put("BRIDGE_WEBHOOK_SECRET", "receiver-secret");
        Process receiver = builder.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(portFile));
            URI uri = URI.create("http://127.0.0.1:" + Files.readString(portFile) + "/");
            byte[] body = "{\"data\":{\"transition\":\"Scheduled\"}}".getBytes(StandardCharsets.UTF_8);
            long now = System.currentTimeMillis() / 1000;
            WebhookSigner right = new WebhookSigner("receiver-secret", Clock.systemUTC());
            assertThat(post(uri, now, right.signature(Long.toString(now), body), body)).isEqualTo(200);
            assertThat(post(uri, now, new WebhookSigner("another-secret", Clock.systemUTC()).signature(Long.toString(now), body), body)).isEqualTo(401);
            assertThat(post(uri, now - 301, right.signature(Long.toString(now - 301), body), body)).isEqualTo(401);
            assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(405);
            // A command's outcome names its action in the headline, as the agent's log line does: prepare and
            // recover of one event are two different lines.
            for (String action : new String[] {"prepare", "recover"}) {
                byte[] outcome = ("{\"data\":{\"transition\":\"ActionSucceeded\",\"action\":\"" + action
                        + "\",\"outcome\":\"succeeded\",\"eventId\":\"C7061BAC-AFDC-4513-B24B-AA5F13A16123\","
                        + "\"eventType\":\"Freeze\"}}").getBytes(StandardCharsets.UTF_8);
                assertThat(post(uri, now, right.signature(Long.toString(now), outcome), outcome)).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> read(work.resolve("receiver.log")).contains("recover"));
            assertThat(read(work.resolve("receiver.log")))
                    .contains("[webhook-receiver] ActionSucceeded prepare Freeze C7061BAC-AFDC-4513-B24B-AA5F13A16123, signature valid: {")
                    .contains("[webhook-receiver] ActionSucceeded recover Freeze C7061BAC-AFDC-4513-B24B-AA5F13A16123, signature valid: {")
                    .contains("Scheduled, signature valid: {")
                    .contains("401, refused (signature does not match)").contains("401, refused (timestamp more than 300 s away)");
        } finally {
            receiver.destroyForcibly();
            receiver.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int post(URI uri, long timestamp, String signature, byte[] body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri)
                .header("X-Bridge-Timestamp", Long.toString(timestamp)).header("X-Bridge-Signature", signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void aStateDirectoryTheUserNamesIsUsedAndKept() throws Exception {
        Path log = work.resolve("run.log");
        Path keep = work.resolve("keep");
        assertTheRunUsesAndKeeps(start(log, "-Dbridge.state.dir=" + keep), log, keep);
    }

    @Test
    void aStateDirectoryNamedInTheEnvironmentIsUsedToo() throws Exception {
        Path log = work.resolve("run.log");
        Path keep = work.resolve("from-env");
        assertTheRunUsesAndKeeps(start(log, null, "-Dbridge.imds.poll-interval=500",
                java.util.Map.of("BRIDGE_STATE_DIR", keep.toString())), log, keep);
    }

    /** The script's run keeps its state in {@code keep}, says so, and leaves it there when stopped. */
    private void assertTheRunUsesAndKeeps(Process script, Path log, Path keep) throws Exception {
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> read(log).contains("Scheduled "));
            assertThat(read(log)).contains("state in " + keep);
            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(keep.resolve("state.json")).exists();
            assertThat(read(log)).containsPattern("try-on-simulator: stopped; \\d+ undelivered message\\(s\\) stay in "
                    + Pattern.quote(keep.toString()));
        } finally {
            stop(script);
        }
    }

    @Test
    void withActionsTheExampleCommandsPrintTheirPrepareAndRecoverLines() throws Exception {
        Path log = work.resolve("run.log");
        // At 600x the Freeze's notice lasts 1.5 s and its Started phase 1 s: a loaded machine's agent starts polling
        // after the one, or polls past the other. At the default speed (60x) it meets both, as a user does.
        Process script = start(log, "--with-actions", "-Dbridge.drain.port=0", "-Dbridge.simulator.speed=60");
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> read(log).contains("RECOVER "));
            String output = read(log);
            assertThat(output).containsPattern("\\[prepare [0-9A-Fa-f-]+\\] PREPARE Freeze [0-9A-Fa-f-]+ on sim-vm-0");
            assertThat(output).containsPattern("\\[recover [0-9A-Fa-f-]+\\] RECOVER [0-9A-Fa-f-]+ after Completed");
            // The simulator's Freeze names a neighbour too: one approval would release it unprepared.
            assertThat(output).containsPattern("Prepare of [0-9A-Fa-f-]+ succeeded; not approved: its Resources also "
                    + "name \\[sim-vm-1\\]");
            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            stop(script);
        }
    }

    /** What people try is what ships: the script's JVM reports every flag that packaging/jvm.options gives. */
    @Test
    void theAgentRunsWithTheShippedJvmOptions() throws Exception {
        // -version after the script's options: the JVM reports its flags, prints its version and exits.
        ProcessBuilder builder = new ProcessBuilder("bin/try-on-simulator", "-XX:+PrintCommandLineFlags", "-version")
                .redirectErrorStream(true);
        builder.environment().put("SEB_SKIP_BUILD", "1");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        builder.environment().put("PATH", Path.of(java).getParent() + File.pathSeparator + System.getenv("PATH"));
        Process script = builder.start();
        try {
            String output = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(script.exitValue()).as(output).isZero();
            assertThat(JvmOptions.reportedFlags(output)).as(output)
                    .containsAll(JvmOptions.asTheJvmReportsThem(java, JvmOptions.FILE));
        } finally {
            stop(script);
        }
    }

    private Process start(Path log, String option) throws Exception {
        return start(log, null, option);
    }

    /** Options after the script's first argument (null: none) and the test's defaults, so they win. */
    private Process start(Path log, String first, String... options) throws Exception {
        return start(log, first, java.util.List.of(options), java.util.Map.of());
    }

    private Process start(Path log, String first, String option, java.util.Map<String, String> env) throws Exception {
        return start(log, first, java.util.List.of(option), env);
    }

    private Process start(Path log, String first, java.util.List<String> options, java.util.Map<String, String> env)
            throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("bin/try-on-simulator"));
        if (first != null) {
            command.add(first);
        }
        command.addAll(java.util.List.of("-Dbridge.management.port=0", "-Dbridge.simulator.speed=600"));
        command.addAll(AgentProcess.sharedArchiveOptions());
        command.addAll(options);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(new File(".")).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("SEB_SKIP_BUILD", "1");
        builder.environment().putAll(env);
        return builder.start();
    }

    /** On a failure too: the agent the script started must not outlive the test (SIGKILL of the script orphans it). */
    private static void stop(Process script) {
        script.descendants().forEach(ProcessHandle::destroyForcibly);
        script.destroyForcibly();
    }

    private static String read(Path log) throws Exception {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }
}
