package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The files the agent's secrets came from, checked at start: one that every local user may read (the action user
 * included) is warned about. Only the mode is looked at, never the content, and a warning names the file and the
 * keys, never a value. Group read is not warned about: a settings file the agent reads itself must be readable by
 * its group when root owns it. Where files have no POSIX permissions (Windows), nothing is said.
 */
public final class OpenSecretFiles {

    /** The keys whose values are secrets: a file that sets one should be private. */
    public static final List<String> SECRET_KEYS = List.of("bridge.webhook.secret", "bridge.approval.secret",
            "bridge.email.password", "bridge.management.password", "bridge.eventhubs.connection-string",
            "bridge.approval.tls.keystore-password", "bridge.eventgrid.key", "bridge.approval.queue.connection-string");

    public static final String ENVIRONMENT_FILE = "bridge.environment-file";

    private OpenSecretFiles() {
    }

    /**
     * One warning per file that every local user may read: {@code files} maps each file to what it gave the agent
     * (e.g. "bridge.approval.secret"). A file that does not exist or cannot be looked at gives nothing.
     */
    public static List<String> warnings(Map<Path, String> files) {
        List<String> warnings = new ArrayList<>();
        files.forEach((file, what) -> readableByEveryone(file).ifPresent(mode -> warnings.add(file + " gives the agent "
                + what + " and every local user can read it (mode " + mode + "): make it private, e.g. sudo chmod o-rwx "
                + file + ", then restart the agent")));
        return warnings;
    }

    /** The file's mode when others (not its owner, not its group) may read it; empty otherwise or when unknown. */
    static Optional<String> readableByEveryone(Path file) {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) == null) {
            return Optional.empty();
        }
        try {
            // Followed: a link's own mode says nothing, the file it names is what others can read.
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            return mode.contains(PosixFilePermission.OTHERS_READ) && Files.isRegularFile(file)
                    ? Optional.of(PosixFilePermissions.toString(mode)) : Optional.empty();
        } catch (IOException | UnsupportedOperationException | SecurityException unknown) {
            return Optional.empty();
        }
    }
}
