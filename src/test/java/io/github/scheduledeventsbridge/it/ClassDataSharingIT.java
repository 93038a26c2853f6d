package io.github.scheduledeventsbridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/create-cds-archive, as the Dockerfile runs it: the archive it writes is accepted by a JVM started with the
 * shipped flags, and the agent's own classes then come from it rather than from the jar. The one the build makes for
 * the tests serves their JVMs of the jar likewise.
 */
class ClassDataSharingIT {

    @TempDir
    Path dir;

    @Test
    void theArchiveFromTheTrainingRunIsUsedByTheNextStart() throws Exception {
        Path archive = dir.resolve("agent.jsa");
        Process training = new ProcessBuilder("bin/create-cds-archive", AgentProcess.jar().toString(), archive.toString())
                .redirectErrorStream(true).start();
        String said = new String(training.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(training.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(training.exitValue()).as(said).isZero();
        assertThat(said).contains("AppCDS archive " + archive);
        assertThat(Files.size(archive)).isGreaterThan(1_000_000);

        List<String> jvm = List.of(JvmOptions.argument(), "-XX:SharedArchiveFile=" + archive, "-Xlog:class+load=info");
        try (AgentProcess agent = AgentProcess.start("cds", jvm, Map.of(),
                Map.of("bridge.simulator.enabled", "true", "bridge.state.dir", dir.resolve("state").toString()), dir)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains(" transitions - "));
            String log = agent.output();
            assertThat(log).doesNotContain("Unable to use shared archive");
            assertThat(log).contains("io.github.scheduledeventsbridge.transitions.TransitionDetector source: shared objects file (top)",
                    "org.apache.camel.impl.DefaultCamelContext source: shared objects file (top)");
        }
    }

    /** What makes the integration tests' ~100 starts of the jar cheaper: without it, every start reads the fat jar. */
    @Test
    void theTestsJvmsOfTheJarStartFromTheArchiveTheBuildMade() throws Exception {
        assertThat(AgentProcess.sharedArchiveOptions()).as("made after the jar by pom.xml's test-cds-archive: "
                + AgentProcess.sharedArchive()).contains("-XX:SharedArchiveFile=" + AgentProcess.sharedArchive());
        try (AgentProcess agent = AgentProcess.start("test-cds", List.of("-Xmx128m", "-Xlog:class+load=info"), Map.of(),
                Map.of("bridge.simulator.enabled", "true", "bridge.state.dir", dir.resolve("state").toString()), dir)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.output().contains(" transitions - "));
            assertThat(agent.output()).contains(
                    "io.github.scheduledeventsbridge.transitions.TransitionDetector source: shared objects file (top)",
                    "org.apache.camel.impl.DefaultCamelContext source: shared objects file (top)");
        }
    }
}
