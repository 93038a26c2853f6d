package io.github.scheduledeventsbridge.windows.install;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which Java the service gets, and when the agent says a newer one is installed: by version, not by folder name. */
class JavaRuntimesTest {

    @TempDir
    Path programFiles;

    @Test
    void theNewestPatchIsChosenByVersionNotByTheFolderNamesOrder() throws IOException {
        Path older = jdk("Microsoft/jdk-17.0.9.8-hotspot", "17.0.9", "17.0.9+8-LTS");
        Path newer = jdk("Microsoft/jdk-17.0.13.11-hotspot", "17.0.13", "17.0.13+11-LTS");
        jdk("Eclipse Adoptium/jre-11.0.25.9-hotspot", "11.0.25", "11.0.25+9");
        Files.createDirectories(programFiles.resolve("Zulu/zulu-21")); // no jvm.dll, no release file: not a Java
        assertThat(older.getFileName().toString()).as("string order puts 17.0.9 first")
                .isGreaterThan(newer.getFileName().toString());

        List<Path> installed = JavaRuntimes.installed(programFiles);
        assertThat(installed).hasSize(4);
        JavaRuntimes.Java chosen = JavaRuntimes.newest(installed).orElseThrow();
        assertThat(chosen.home()).isEqualTo(newer);
        assertThat(chosen.version()).hasToString("17.0.13+11-LTS");
    }

    @Test
    void aNewerFeatureReleaseWinsAndJavaOlderThan17IsNeverChosen() throws IOException {
        jdk("Microsoft/jdk-17.0.13.11-hotspot", "17.0.13", "17.0.13+11-LTS");
        Path java21 = jdk("Eclipse Adoptium/jdk-21.0.5.11-hotspot", "21.0.5", "21.0.5+11-LTS");
        assertThat(JavaRuntimes.newest(JavaRuntimes.installed(programFiles)).orElseThrow().home()).isEqualTo(java21);

        Files.walk(programFiles).sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(programFiles))
                .forEach(p -> p.toFile().delete());
        jdk("Java/jdk-11.0.2", "11.0.2", null);
        assertThat(JavaRuntimes.newest(JavaRuntimes.installed(programFiles))).isEmpty();
    }

    @Test
    void theAgentIsToldWhenANewerJavaIsInstalledThanTheOneItRunsOn() throws IOException {
        Path newer = jdk("Microsoft/jdk-17.0.13.11-hotspot", "17.0.13", "17.0.13+11-LTS");
        List<Path> installed = JavaRuntimes.installed(programFiles);
        assertThat(JavaRuntimes.newerInstalled(Runtime.Version.parse("17.0.9+8-LTS"), installed)).hasValueSatisfying(
                w -> assertThat(w).contains("Java 17.0.9+8-LTS", "Java 17.0.13+11-LTS", newer.toString(),
                        "run install.ps1 again"));
        assertThat(JavaRuntimes.newerInstalled(Runtime.Version.parse("17.0.13+11-LTS"), installed)).isEmpty();
        assertThat(JavaRuntimes.newerInstalled(Runtime.Version.parse("21.0.5+11"), installed)).isEmpty();
    }

    @Test
    void theReleaseFileOfARealJdkNamesTheVersionItRuns() {
        Path home = Path.of(System.getProperty("java.home"));
        assertThat(JavaRuntimes.version(home)).hasValueSatisfying(
                v -> assertThat(v.compareToIgnoreOptional(Runtime.version())).isZero());
    }

    /** A Java home as the Windows builds lay it out: bin\server\jvm.dll and the release file. */
    private Path jdk(String folder, String version, String runtimeVersion) throws IOException {
        Path home = Files.createDirectories(programFiles.resolve(folder));
        Files.createDirectories(home.resolve("bin/server"));
        Files.write(home.resolve("bin/server/jvm.dll"), new byte[] {'M', 'Z'});
        StringBuilder release = new StringBuilder("IMPLEMENTOR=\"Microsoft\"\r\n");
        if (runtimeVersion != null) {
            release.append("JAVA_RUNTIME_VERSION=\"").append(runtimeVersion).append("\"\r\n");
        }
        release.append("JAVA_VERSION=\"").append(version).append("\"\r\nOS_NAME=\"Windows\"\r\n");
        Files.writeString(home.resolve("release"), release);
        return home;
    }
}
