package io.github.scheduledeventsbridge.windows.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;


/**
 * The Javas installed on a Windows VM, by the version their {@code release} file names (every JDK and JRE since 9
 * has one), compared as versions: 17.0.13 is newer than 17.0.9, which a folder name's string order gets wrong.
 */
public final class JavaRuntimes {

    /** Where the usual Windows builds install, under {@code %ProgramFiles%}. */
    static final List<String> VENDOR_FOLDERS = List.of("Microsoft", "Eclipse Adoptium", "Zulu", "Java",
            "Amazon Corretto", "BellSoft", "Semeru");
    public static final int MINIMUM_FEATURE = 17;

    public record Java(Path home, Runtime.Version version) {
    }

    private JavaRuntimes() {
    }

    /** A Java the service can run on (its {@code bin\server\jvm.dll} and its version), or empty. */
    public static Optional<Java> read(Path home) {
        if (!Files.isRegularFile(home.resolve("bin").resolve("server").resolve("jvm.dll"))) {
            return Optional.empty();
        }
        return version(home).map(v -> new Java(home, v));
    }

    /** The version a Java home's release file names: JAVA_RUNTIME_VERSION (with the build), else JAVA_VERSION. */
    static Optional<Runtime.Version> version(Path home) {
        List<String> lines;
        try {
            lines = Files.readAllLines(home.resolve("release"), StandardCharsets.ISO_8859_1);
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        for (String key : List.of("JAVA_RUNTIME_VERSION", "JAVA_VERSION")) {
            for (String line : lines) {
                if (line.startsWith(key + "=")) {
                    try {
                        return Optional.of(Runtime.Version.parse(line.substring(key.length() + 1).replace("\"", "")
                                .strip()));
                    } catch (IllegalArgumentException notAVersion) {
                        break;
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The Java homes under the vendors' folders of {@code programFiles} (each vendor folder's sub-folders). */
    public static List<Path> installed(Path programFiles) {
        List<Path> homes = new ArrayList<>();
        for (String vendor : VENDOR_FOLDERS) {
            try (DirectoryStream<Path> folders = Files.newDirectoryStream(programFiles.resolve(vendor),
                    Files::isDirectory)) {
                folders.forEach(homes::add);
            } catch (IOException absent) {
                // No Java of that vendor.
            }
        }
        return homes;
    }

    /** The newest Java 17 or later among {@code homes}. */
    public static Optional<Java> newest(List<Path> homes) {
        return homes.stream().map(JavaRuntimes::read).flatMap(Optional::stream)
                .filter(j -> j.version().feature() >= MINIMUM_FEATURE)
                .max(Comparator.comparing(Java::version, Runtime.Version::compareToIgnoreOptional));
    }

    /**
     * The warning the agent logs when it runs on an older Java than the newest installed one: a security update was
     * installed and install.ps1 not run again since. Empty when it runs on the newest.
     */
    public static Optional<String> newerInstalled(Runtime.Version running, List<Path> homes) {
        return newest(homes).filter(n -> n.version().compareToIgnoreOptional(running) > 0)
                .map(n -> "The agent runs on Java " + running + ", but Java " + n.version() + " is installed in "
                        + n.home() + ": run install.ps1 again (from the program folder) so that the service runs on "
                        + "it, with its security fixes");
    }

    /**
     * At the Windows service's start: one warning when a newer Java is installed under {@code %ProgramFiles%} than
     * the private copy the service runs on.
     */
    /** Where Java is installed as Windows installs it: a newer Java than the one running, said as one line. */
    public static Optional<String> newerThanRunning() {
        String programFiles = System.getenv("ProgramFiles");
        return programFiles == null ? Optional.empty() : newerInstalled(Runtime.version(), installed(Path.of(programFiles)));
    }
}
