package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The JVM flags the agent ships with, read from the packaging files themselves. */
public final class ShippedJvmFlags {

    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(-X[\\w:+=.\\-/,]+)");

    private ShippedJvmFlags() {
    }

    /** The Dockerfile's ENTRYPOINT flags that shape the JVM (the CDS archive path and logging left out). */
    public static List<String> shipped() {
        return of(section(read("Dockerfile"), "ENTRYPOINT", "]"));
    }

    public static List<String> systemd() {
        return of(section(read("packaging/systemd/scheduled-events-bridge.service"), "ExecStart=", "-jar"));
    }

    public static List<String> cdsTraining() {
        return of(section(read("bin/create-cds-archive"), "exec \"$java\"", "-jar"));
    }

    private static List<String> of(String text) {
        List<String> flags = new ArrayList<>();
        Matcher m = FLAG.matcher(text);
        while (m.find()) {
            String flag = m.group(1);
            if (!flag.startsWith("-XX:SharedArchiveFile") && !flag.startsWith("-XX:ArchiveClassesAtExit")
                    && !flag.startsWith("-Xlog") && !flag.startsWith("-Xshare")) {
                flags.add(flag);
            }
        }
        return flags;
    }

    private static String section(String text, String from, String to) {
        int start = text.indexOf(from);
        if (start < 0) {
            throw new IllegalStateException("no " + from);
        }
        int end = text.indexOf(to, start + from.length());
        return text.substring(start, end < 0 ? text.length() : end);
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
