package io.github.scheduledeventsbridge.logging;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the agent's log goes once its settings are read: standard output (Linux, where systemd's journal keeps and
 * rotates it), or files the agent rolls itself (Windows, where procrun would write standard output to one file per
 * service start and never rotate it). {@code dir} empty means standard output. Read with the other settings
 * ({@code BridgeSettings}): this package is below the configuration's.
 */
public record LogFileSettings(Optional<Path> dir, long fileSize, int fileCount) {

    public static final String STDOUT = "stdout";
    public static final long SMALLEST_FILE = 64 * 1024;
    public static final int MOST_FILES = 1000;

    @Override
    public String toString() {
        return dir.map(d -> d.resolve(RollingFileHandler.LIVE) + " (rolled at " + fileSize + " bytes, " + fileCount
                + " files kept)").orElse("standard output");
    }
}
