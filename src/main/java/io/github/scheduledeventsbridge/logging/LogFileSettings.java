package io.github.scheduledeventsbridge.logging;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the agent's log goes once its settings are read: standard output (Linux, where systemd's journal keeps and
 * rotates it), or files the agent rolls itself (Windows, where procrun would write standard output to one file per
 * service start and never rotate it). {@code dir} empty means standard output.
 */
public record LogFileSettings(Optional<Path> dir, long fileSize, int fileCount) {

    public static final String STDOUT = "stdout";
    static final long SMALLEST_FILE = 64 * 1024;
    static final int MOST_FILES = 1000;

    /** {@code stateDir}: the Windows default is the {@code logs} folder beside the state, as the installer makes it. */
    public static LogFileSettings read(SettingsReader r, Path stateDir) {
        String configured = r.string("bridge.log.dir", "").strip();
        Optional<Path> dir;
        if (configured.isEmpty()) {
            dir = r.platform().windows() ? Optional.of(stateDir.resolve("logs")) : Optional.empty();
        } else if (configured.equals(STDOUT)) {
            dir = Optional.empty();
        } else {
            dir = Optional.of(r.writableDirectory("bridge.log.dir", configured));
        }
        long size = r.positiveLong("bridge.log.file-size", 10L * 1024 * 1024);
        if (size < SMALLEST_FILE) {
            throw new BadConfigurationException("bridge.log.file-size", size + " is below " + SMALLEST_FILE
                    + " bytes (64 KiB)");
        }
        long count = r.positiveLong("bridge.log.file-count", 10);
        if (count > MOST_FILES) {
            throw new BadConfigurationException("bridge.log.file-count", count + " is above " + MOST_FILES);
        }
        return new LogFileSettings(dir, size, (int) count);
    }

    @Override
    public String toString() {
        return dir.map(d -> d.resolve(RollingFileHandler.LIVE) + " (rolled at " + fileSize + " bytes, " + fileCount
                + " files kept)").orElse("standard output");
    }
}
