package io.github.scheduledeventsbridge.packaging;

import io.github.scheduledeventsbridge.testing.ShippedJvmFlags;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaging files, checked by the tools made for them (installed by bin/install-prerequisites):
 * a missing tool fails the test rather than skipping it.
 */
class PackagingLintTest {

    private static final Path UNIT = Path.of("packaging/systemd/scheduled-events-bridge.service");

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + " said:\n" + output).isZero();
        return output;
    }

    @Test
    void theSystemdUnitVerifies() throws Exception {
        run(List.of("systemd-analyze", "verify", UNIT.toAbsolutePath().toString()));
    }

    @Test
    void theSystemdUnitIsHardenedAsDocumented() throws Exception {
        String unit = Files.readString(UNIT);
        assertThat(unit).contains("DynamicUser=yes", "StateDirectory=scheduled-events-bridge", "ProtectSystem=strict",
                "Restart=on-failure", "NoNewPrivileges=yes", "RestartPreventExitStatus=2");
    }

    @Test
    void theDockerfileTheSystemdUnitAndTheCdsTrainingRunUseTheSameJvmFlags() {
        List<String> shipped = ShippedJvmFlags.shipped();
        assertThat(shipped).contains("-XX:+UseSerialGC", "-Xmx96m", "-XX:TieredStopAtLevel=1");
        assertThat(ShippedJvmFlags.systemd()).isEqualTo(shipped);
        // ExitOnOutOfMemoryError does not change which classes load; everything else must match the archive's JVM.
        assertThat(ShippedJvmFlags.cdsTraining())
                .isEqualTo(shipped.stream().filter(f -> !f.equals("-XX:+ExitOnOutOfMemoryError")).toList());
    }

    @Test
    void bothLaunchersUseTheClassDataSharingArchive() throws Exception {
        assertThat(Files.readString(Path.of("Dockerfile")))
                .contains("create-cds-archive", "-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa");
        assertThat(Files.readString(UNIT))
                .contains("-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa");
    }

    @Test
    void theDockerfilePassesTheLinter() throws Exception {
        assertThat(run(List.of("dockerfilelint", "Dockerfile"))).contains("Issues: None found");
    }

    @Test
    void theImageRunsAsNonRootWithAStateVolumeAndAHealthCheck() throws Exception {
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        assertThat(dockerfile).contains("FROM maven:", " AS build", "FROM eclipse-temurin:17-jre", "USER 10001",
                "VOLUME [\"/var/lib/scheduled-events-bridge\"]", "HEALTHCHECK", "-XX:+UseSerialGC");
    }
}
