package io.github.scheduledeventsbridge.platform;

import io.github.scheduledeventsbridge.storage.AtomicFiles;
import io.github.scheduledeventsbridge.testing.StateFilesWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** What the agent keeps is its own: files 0600 and directories 0700 whatever the umask; no planted link is followed. */
class PrivateFilesTest {

    @TempDir
    Path dir;

    @Test
    void everyFileIs0600AndEveryDirectory0700EvenUnderUmask000() throws Exception {
        Path state = dir.resolve("var").resolve("state");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process writer = new ProcessBuilder("/bin/sh", "-c", "umask 000 && exec \"$0\" -cp \"$1\" \"$2\" \"$3\"", java,
                System.getProperty("java.class.path"), StateFilesWriter.class.getName(), state.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("writer.log").toFile()).start();
        assertThat(writer.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(writer.exitValue()).as(Files.readString(dir.resolve("writer.log"))).isZero();

        Map<String, String> modes = modes(dir.resolve("var"));
        assertThat(modes.remove("state/" + StateFilesWriter.CONTROL)).as("the umask in effect").isEqualTo("rw-rw-rw-");
        assertThat(modes.keySet()).contains("state", "state/state.json", "state/actions.json",
                "state/actions.log", "state/spool",
                "state/spool/webhook-1", "state/spool/webhook-1/0000000000000000001.json",
                "state/spool/webhook-1/dead-letter/0000000000000000002.json",
                "state/spool/webhook-1/dead-letter/0000000000000000002.reason.txt");
        modes.forEach((name, mode) -> assertThat(mode).as(name)
                .isEqualTo(Files.isDirectory(dir.resolve("var").resolve(name)) ? "rwx------" : "rw-------"));
    }

    @Test
    void aSymbolicLinkPlantedAtTheOldTemporaryNameIsNotFollowed() throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "someone else's file");
        Path target = dir.resolve("state.json");
        Files.createSymbolicLink(dir.resolve(".state.json.tmp"), victim);

        AtomicFiles.write(target, "{\"new\":true}".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(victim)).isEqualTo("someone else's file");
        assertThat(Files.isSymbolicLink(target)).isFalse();
        assertThat(Files.readString(target)).isEqualTo("{\"new\":true}");
    }

    /** Every path under {@code root}, relative, with its permissions (not following links). */
    private static Map<String, String> modes(Path root) throws IOException {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.filter(p -> !p.equals(root)).toList()) {
                modes.put(root.relativize(path).toString(),
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)));
            }
        }
        return modes;
    }
}
