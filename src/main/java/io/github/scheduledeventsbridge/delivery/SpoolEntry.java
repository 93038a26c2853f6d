package io.github.scheduledeventsbridge.delivery;

import java.nio.file.Path;

/**
 * One message waiting on disk for one sink; {@code queue} is the in-memory lane that delivers it. A message of a
 * spool document ({@link SpoolDocument}: many messages in one file) is its line {@code index}, {@code length} bytes
 * from {@code offset}; its {@code payload} too when it was just written (read from the file when it is null, so
 * that the documents replayed at start do not all sit in memory).
 */
public record SpoolEntry(String sinkId, String queue, Path file, SpoolDocument document, int index, long offset,
                         int length, byte[] payload) {

    /** A message in a file of its own. */
    public SpoolEntry(String sinkId, String queue, Path file) {
        this(sinkId, queue, file, null, 0, 0, 0, null);
    }
}
