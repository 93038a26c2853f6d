package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The packaged agent (target/scheduled-events-bridge.jar) as a real process that can be killed with -9. */
public final class AgentProcess implements AutoCloseable {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Process process;
    private final Path log;

    private AgentProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static Path jar() {
        return Path.of(System.getProperty("seb.test.jar", "target/scheduled-events-bridge.jar"));
    }

    /** The class-data-sharing archive the build makes of the jar for the tests (pom.xml, test-cds-archive). */
    public static Path sharedArchive() {
        return jar().toAbsolutePath().resolveSibling("test-cds").resolve("scheduled-events-bridge.jsa");
    }

    /**
     * The JVM options that start the jar from {@link #sharedArchive()}: a third to 40 % less CPU per start,
     * for the ~100 JVMs of the jar the integration tests start. None when the archive is missing or older than the
     * jar (a JVM would refuse it). The JVM's own notes on the archive are off, so that the agent's output is the same
     * with it or without; ClassDataSharingIT checks that the archive is used.
     */
    public static List<String> sharedArchiveOptions() {
        Path archive = sharedArchive();
        try {
            if (Files.isRegularFile(archive)
                    && !Files.getLastModifiedTime(archive).toInstant().isBefore(Files.getLastModifiedTime(jar()).toInstant())) {
                return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
            }
        } catch (IOException e) {
            // No archive to speak of: start without it.
        }
        return List.of();
    }

    /** Starts the jar; {@code env} entries are environment variables, {@code sysProps} become -D flags. */
    public static AgentProcess start(String name, Map<String, String> env, Map<String, String> sysProps,
                                     Path workDir) throws IOException {
        return start(name, List.of("-Xmx128m"), env, sysProps, workDir);
    }

    /** As above, with these JVM options instead of the default {@code -Xmx128m}; the shipped ones: {@code List.of(JvmOptions.argument())}. */
    public static AgentProcess start(String name, List<String> jvmOptions, Map<String, String> env,
                                     Map<String, String> sysProps, Path workDir) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:SharedArchiveFile") || o.startsWith("-Xshare"))) {
            command.addAll(sharedArchiveOptions());
        }
        command.addAll(jvmOptions);
        sysProps.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar().toAbsolutePath().toString());
        Path logs = Path.of("target", "it-logs");
        Files.createDirectories(logs);
        // The test JVM's pid in the name: several test JVMs run at once and number their agents alike.
        Path log = logs.resolve(name + "-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet() + ".log").toAbsolutePath();
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // Any free management port unless the test chose one: tests must not depend on 8080 being free.
        if (!env.containsKey("BRIDGE_MANAGEMENT_PORT") && !sysProps.containsKey("bridge.management.port")) {
            builder.environment().put("BRIDGE_MANAGEMENT_PORT", "0");
        }
        builder.environment().putAll(env);
        return new AgentProcess(builder.start(), log);
    }

    public static Map<String, String> env(String... keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    /** SIGKILL: no shutdown hook, no flush, exactly like kill -9. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public int waitForExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("agent did not exit within " + seconds + " s; log: " + log);
        }
        return process.exitValue();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                kill9();
            }
        }
    }
}
