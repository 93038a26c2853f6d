package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A state file the agent may not read is not a corrupt one: moving it aside would report every current
 * event again. Start-up stops instead, naming the file's owner and mode (typically left by a run as root).
 */
final class StateFiles {

    static final String STATE_FILE = "state.json";
    /** The journal of prepare and recover commands (action/ActionState). */
    static final String ACTIONS_FILE = "actions.json";

    private StateFiles() {
    }

    static void requireReadable(String key, Path stateDir) {
        for (String name : java.util.List.of(STATE_FILE, ACTIONS_FILE)) {
            requireReadableFile(key, stateDir.resolve(name));
        }
    }

    private static void requireReadableFile(String key, Path state) {
        if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (FileChannel ignored = FileChannel.open(state, StandardOpenOption.READ)) {
            // readable: fine
        } catch (AccessDeniedException e) {
            throw new BadConfigurationException(key, state + " cannot be read by this user ("
                    + describe(state) + "); fix its owner or mode, it is not moved aside");
        } catch (IOException e) {
            throw new BadConfigurationException(key, state + " cannot be opened (" + e.getMessage() + ")");
        }
    }

    private static String describe(Path file) {
        try {
            return "owner " + Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName() + ", mode "
                    + PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UnsupportedOperationException e) {
            return "owner and mode unknown";
        }
    }
}
