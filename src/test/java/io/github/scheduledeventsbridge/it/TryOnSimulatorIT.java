package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.JvmOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The quick start's script as a user runs it: their options win, and its state goes with the run. */
class TryOnSimulatorIT {

    private static final Pattern STATE_DIR = Pattern.compile("ms \\(api-version .*\\), filter \\S+, state in (\\S+)");

    @TempDir
    Path work;

    @Test
    void theUsersOptionsWinAndTheTemporaryStateGoesWithTheRun() throws Exception {
        Path log = work.resolve("run.log");
        Process script = start(log, "-Dbridge.imds.poll-interval=700");
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> read(log).contains("Scheduled "));
            String output = read(log);
            assertThat(output).contains("every 700 ms").contains("on its built-in IMDS simulator")
                    .contains("(removed when it stops)").contains("Ctrl-C stops it.");
            Matcher m = STATE_DIR.matcher(output);
            assertThat(m.find()).as(output).isTrue();
            Path stateDir = Path.of(m.group(1));
            assertThat(stateDir.getFileName().toString()).startsWith("seb-simulator.");
            assertThat(stateDir).as(output).isDirectory();

            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(stateDir).doesNotExist();
        } finally {
            stop(script);
        }
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
        } finally {
            stop(script);
        }
    }

    @Test
    void withActionsTheExampleCommandsPrintTheirPrepareAndRecoverLines() throws Exception {
        Path log = work.resolve("run.log");
        Process script = start(log, "--with-actions", "-Dbridge.drain.port=0");
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> read(log).contains("RECOVER "));
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

    private Process start(Path log, String first, String option) throws Exception {
        return start(log, first, option, java.util.Map.of());
    }

    private Process start(Path log, String first, String option, java.util.Map<String, String> env) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("bin/try-on-simulator"));
        if (first != null) {
            command.add(first);
        }
        command.addAll(java.util.List.of("-Dbridge.management.port=0", "-Dbridge.simulator.speed=600", option));
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
