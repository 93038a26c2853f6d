package io.github.scheduledeventsbridge.delivery;

import java.nio.file.Path;

/** One message waiting on disk for one sink; {@code queue} is the in-memory lane that delivers it. */
public record SpoolEntry(String sinkId, String queue, Path file) {
}
