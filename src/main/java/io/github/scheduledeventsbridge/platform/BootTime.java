package io.github.scheduledeventsbridge.platform;

import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * When this machine last booted, or null when it cannot be told. Evidence for a Reboot or Redeploy
 * whose Started phase the agent did not see: if the VM booted after the agent last looked, it happened.
 * Tests replace it; the agent asks its platform: the kernel's {@code btime} from {@code /proc/stat} on Linux, the
 * tick count on Windows.
 */
@FunctionalInterface
public interface BootTime {

    Instant get();

    /** The kernel's boot time ({@code btime}, Unix seconds) from a /proc/stat-style file. */
    static BootTime procStat(Path file) {
        return () -> read(file);
    }

    static BootTime system() {
        return Platform.current().bootTime();
    }

    private static Instant read(Path file) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("btime ")) {
                    return Instant.ofEpochSecond(Long.parseLong(line.substring("btime ".length()).trim()));
                }
            }
        } catch (IOException | RuntimeException e) {
            LoggerFactory.getLogger(BootTime.class).debug("Boot time unreadable from {}: {}", file, e.getMessage());
        }
        return null;
    }
}
