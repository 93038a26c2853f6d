package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A state file the agent may not read is not a corrupt one: moving it aside would report every current
 * event again. Start-up stops instead, naming the file's owner and mode (typically left by a run as root).
 */
final class StateFiles {

    private StateFiles() {
    }

    /** The journal (state.json) and that of prepare and recover commands (actions.json, action/ActionState). */
    static void requireReadable(String key, Path stateDir) {
        for (Path state : List.of(stateDir.resolve("state.json"), stateDir.resolve("actions.json"))) {
            if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) {
                continue;
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
