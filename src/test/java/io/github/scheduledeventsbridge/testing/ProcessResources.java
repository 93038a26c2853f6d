package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What a process holds, read from /proc: resident memory, open files, and this JVM's open-files limit. */
public final class ProcessResources {

    private ProcessResources() {
    }

    public static long rssKb(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("VmRSS:")).mapToLong(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElse(0);
        } catch (IOException e) {
            return 0;
        }
    }

    public static long fds(long pid) throws IOException {
        try (Stream<Path> open = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return open.count();
        }
    }

    /** How many files this JVM may open (4096 when /proc cannot tell). */
    public static long openFilesLimit() {
        try {
            return Files.readAllLines(Path.of("/proc/self/limits")).stream().filter(l -> l.startsWith("Max open files"))
                    .map(l -> l.split("\\s+")[3]).mapToLong(v -> v.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(v))
                    .findFirst().orElse(4096);
        } catch (IOException e) {
            return 4096;
        }
    }
}
