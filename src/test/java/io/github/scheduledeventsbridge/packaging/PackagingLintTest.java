package io.github.scheduledeventsbridge.packaging;

import io.github.scheduledeventsbridge.config.ConfigKeys;
import io.github.scheduledeventsbridge.testing.ShippedJvmFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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

    /**
     * In a scratch root as the .deb and the .tar.gz lay it out (a stand-in for the bundled runtime's java, this
     * machine's targets): systemd-analyze checks that ExecStart names an executable, so the unit must point at it.
     */
    @Test
    void theSystemdUnitVerifies(@TempDir Path root) throws Exception {
        Path java = Files.createDirectories(root.resolve("opt/scheduled-events-bridge/runtime/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path units = Files.createDirectories(root.resolve("usr/lib/systemd/system"));
        try (Stream<Path> targets = Files.list(Path.of("/lib/systemd/system"))) {
            for (Path target : targets.filter(p -> p.toString().endsWith(".target")).toList()) {
                Files.copy(target, units.resolve(target.getFileName()));
            }
        }
        Files.copy(UNIT, Files.createDirectories(root.resolve("etc/systemd/system")).resolve(UNIT.getFileName()));
        run(List.of("systemd-analyze", "verify", "--root=" + root, "/etc/systemd/system/" + UNIT.getFileName()));
        // The same root without the runtime: the check really looks inside it.
        Files.delete(java);
        Process without = new ProcessBuilder("systemd-analyze", "verify", "--root=" + root,
                "/etc/systemd/system/" + UNIT.getFileName()).redirectErrorStream(true).start();
        String said = new String(without.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(without.waitFor()).isNotZero();
        assertThat(said).contains("/opt/scheduled-events-bridge/runtime/bin/java");
    }

    @Test
    void theUnitRunsTheBundledRuntimeWithTheConfigurationFile() throws Exception {
        assertThat(Files.readString(UNIT)).contains("ExecStart=/opt/scheduled-events-bridge/runtime/bin/java ",
                "-Dbridge.config=/etc/scheduled-events-bridge/bridge.properties",
                "-jar /opt/scheduled-events-bridge/scheduled-events-bridge.jar",
                "EnvironmentFile=-/etc/scheduled-events-bridge/environment");
    }

    /** The packaged configuration file: only comments, or keys the agent knows (it refuses any other). */
    @Test
    void theShippedConfigurationFileHasOnlyKnownKeys() throws Exception {
        ConfigKeys keys = ConfigKeys.packaged();
        for (String line : Files.readAllLines(Path.of("packaging/etc/bridge.properties"))) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                assertThat(keys.isKnown(trimmed.substring(0, trimmed.indexOf('=')))).as(line).isTrue();
            } else if (trimmed.startsWith("#bridge.")) {
                assertThat(keys.isKnown(trimmed.substring(1, trimmed.indexOf('=')))).as(line).isTrue();
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theCloudInitExampleIsCloudConfigThatWritesKnownSettingsAndEnablesTheUnit() throws Exception {
        Path file = Path.of("packaging/cloud-init/vmss.yaml");
        String text = Files.readString(file);
        assertThat(text).startsWith("#cloud-config\n");
        Map<String, Object> config = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
        assertThat(config).containsOnlyKeys("write_files", "runcmd");
        ConfigKeys keys = ConfigKeys.packaged();
        Map<String, String> written = new java.util.HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) config.get("write_files")) {
            written.put((String) entry.get("path"), (String) entry.get("content"));
        }
        assertThat(written).containsOnlyKeys("/etc/scheduled-events-bridge/bridge.properties", "/etc/scheduled-events-bridge/environment");
        for (String line : written.get("/etc/scheduled-events-bridge/bridge.properties").split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertThat(keys.isKnown(line.substring(0, line.indexOf('=')))).as(line).isTrue();
            }
        }
        for (String line : written.get("/etc/scheduled-events-bridge/environment").split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertThat(keys.byEnvironmentName(line.substring(0, line.indexOf('=')))).as(line).isPresent();
            }
        }
        String commands = config.get("runcmd").toString();
        assertThat(commands).contains("--force-confold", "scheduled-events-bridge.deb", "enable, --now, scheduled-events-bridge.service");
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
