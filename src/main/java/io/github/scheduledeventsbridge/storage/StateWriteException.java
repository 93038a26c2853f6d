package io.github.scheduledeventsbridge.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The state or the spool could not be written (disk full, read-only, permissions). Nothing is lost:
 * the previous state file is untouched, and the change is recorded again on the next poll.
 */
public class StateWriteException extends RuntimeException {
    public StateWriteException(Path where, IOException cause) {
        super("cannot write " + where + " (" + cause.getMessage() + ")", cause);
    }
}
