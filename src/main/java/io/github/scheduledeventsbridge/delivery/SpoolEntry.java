package io.github.scheduledeventsbridge.delivery;

import java.nio.file.Path;

/**
 * One message waiting on disk for one sink; {@code queue} is the in-memory lane that delivers it. A message of a
 * spool document ({@link SpoolDocument}: many messages in one file) carries its bytes and its place in the file.
 */
public record SpoolEntry(String sinkId, String queue, Path file, SpoolDocument document, int index, byte[] payload) {

    /** A message in a file of its own. */
    public SpoolEntry(String sinkId, String queue, Path file) {
        this(sinkId, queue, file, null, 0, null);
    }
}
