package io.github.scheduledeventsbridge.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Real files with real modes: only one that every local user may read is warned about, and never with its content. */
class OpenSecretFilesTest {

    private static final String SECRET = "0123456789abcdef0123456789abcdef-not-to-be-printed";

    @TempDir
    Path dir;

    private Path file(String name, String mode) throws Exception {
        Path file = Files.writeString(dir.resolve(name), "BRIDGE_APPROVAL_SECRET=" + SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    @Test
    void aFileEveryoneCanReadIsWarnedAboutByNameAndModeOnly() throws Exception {
        Path open = file("environment", "rw-r--r--");
        assertThat(OpenSecretFiles.warnings(Map.of(open, "its BRIDGE_* variables"))).singleElement().asString()
                .isEqualTo(open + " gives the agent its BRIDGE_* variables and every local user can read it (mode "
                        + "rw-r--r--): make it private, e.g. sudo chmod o-rwx " + open + ", then restart the agent")
                .doesNotContain(SECRET);
    }

    @Test
    void privateFilesAndFilesOnlyTheGroupReadsAreNot() throws Exception {
        Map<Path, String> files = new LinkedHashMap<>();
        files.put(file("owner-only", "rw-------"), "a");
        files.put(file("group-too", "rw-r-----"), "b");
        files.put(dir.resolve("missing"), "c");
        assertThat(OpenSecretFiles.warnings(files)).isEmpty();
    }

    @Test
    void aLinkIsJudgedByTheFileItNames() throws Exception {
        Path open = file("open", "rw-r--r--");
        Path link = Files.createSymbolicLink(dir.resolve("link"), open);
        assertThat(OpenSecretFiles.warnings(Map.of(link, "bridge.approval.secret"))).singleElement().asString()
                .startsWith(link + " gives the agent bridge.approval.secret and every local user can read it");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-------"));
        assertThat(OpenSecretFiles.warnings(Map.of(link, "bridge.approval.secret"))).isEmpty();
    }
}
