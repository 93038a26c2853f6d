package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * packaging/jvm.options, the JDK @argfile every launcher starts the agent with. Tests that run the agent as shipped
 * pass {@link #argument()} to java, as the launchers do, rather than a copy of the flags.
 */
public final class JvmOptions {

    public static final Path FILE = Path.of("packaging/jvm.options");

    private JvmOptions() {
    }

    /** {@code @} and the file's absolute path: the java launcher reads the options from it, in any working directory. */
    public static String argument() {
        return argument(FILE);
    }

    public static String argument(Path file) {
        return "@" + file.toAbsolutePath();
    }

    /**
     * The options as the java launcher reads the file: white space separates them, '#' at the start of one comments
     * out the rest of its line. Quotes (which the launcher also knows) are refused, so this reader stays as simple
     * as the file.
     */
    public static List<String> read(Path file) {
        List<String> options = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                for (String word : line.strip().split("\\s+")) {
                    if (word.startsWith("#")) {
                        break;
                    }
                    if (word.contains("\"") || word.contains("'")) {
                        throw new IllegalStateException(file + ": quotes are not for this reader: " + line);
                    }
                    if (!word.isEmpty()) {
                        options.add(word);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return options;
    }

    public static List<String> read() {
        return read(FILE);
    }

    /**
     * What {@code java @file -XX:+PrintCommandLineFlags -version} reports: the file's options as the JVM took them
     * (sizes in bytes, every -X flag as its -XX: name) plus the ones it derives; a JVM started with the file reports
     * all of these too.
     */
    public static List<String> asTheJvmReportsThem(String java, Path file) {
        try {
            Process process = new ProcessBuilder(java, argument(file), "-XX:+PrintCommandLineFlags", "-version")
                    .redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(java + " refuses " + file + ":\n" + output);
            }
            return reportedFlags(output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The line -XX:+PrintCommandLineFlags wrote into a JVM's output, split into flags. */
    public static List<String> reportedFlags(String output) {
        return output.lines().filter(l -> l.startsWith("-XX:") && l.contains("-XX:+PrintCommandLineFlags")).findFirst()
                .map(l -> Arrays.asList(l.strip().split("\\s+")))
                .orElseThrow(() -> new IllegalStateException("no -XX:+PrintCommandLineFlags line in:\n" + output));
    }
}
