package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps of {@link ActionState} since its last snapshot, one JSON object a line ({@code actions.log}), each append
 * forced to disk before it counts. The first line names the snapshot generation the steps build on: a log left from
 * before the last snapshot (a crash between the two writes) is ignored, the snapshot holds its steps already. A torn
 * last line (a crash mid-append) is cut off when the log is opened; an unreadable whole line elsewhere is set aside
 * ({@code actions.log.corrupt-<time>}, bounded) and the steps after it still count.
 */
final class ActionLog {

    private static final Logger LOG = LoggerFactory.getLogger(ActionLog.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    static final String FILE = "actions.log";
    /** The snapshot was unreadable: whatever generation the log says, its steps are better than nothing. */
    static final long ANY_GENERATION = -1;

    private final Path file;
    private FileChannel channel;
    /** Bytes known good: appends go here, and a failed append is cut back to it. */
    private long size;
    /** The generation the file on disk builds on; appends for another one start the file afresh first. */
    private long fileGeneration = Long.MIN_VALUE;
    private long base;

    ActionLog(Path file) {
        this.file = file;
    }

    /** Reads the steps that build on this snapshot generation and makes the log ready for appends. */
    List<ObjectNode> open(long generation) {
        List<ObjectNode> steps = new ArrayList<>();
        long good = 0;
        long header = Long.MIN_VALUE;
        UnreadableLines unreadable = new UnreadableLines();
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        if (Files.exists(file)) {
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (AccessDeniedException e) {
                throw new BadConfigurationException("bridge.state.dir",
                        file + " cannot be read by this user; fix its owner or mode, it is not moved aside");
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + file, e);
            }
            int start = 0;
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] != '\n') {
                    continue;
                }
                ObjectNode line = parse(bytes, start, i - start);
                if (line == null) {
                    // One bad line (a disk error, a hand edit) costs only itself: the steps after it still count
                    // (a bad first line leaves the generation unknown: then the log is not taken, as before).
                    unreadable.add(bytes, start, i - start);
                } else {
                    if (start == 0) {
                        header = line.path("generation").asLong(Long.MIN_VALUE);
                    } else {
                        steps.add(line);
                    }
                    kept.write(bytes, start, i + 1 - start);
                }
                start = i + 1;
                good = start;
            }
        }
        boolean builds = header != Long.MIN_VALUE && (generation == ANY_GENERATION || header == generation);
        if (!builds) {
            if (header != Long.MIN_VALUE) {
                LOG.info("{} is from before the last snapshot: its steps are in the snapshot already", file);
            }
            // Started with the first step: an agent without actions leaves no log behind.
            base = generation == ANY_GENERATION ? 0 : generation;
            return List.of();
        }
        base = header;
        fileGeneration = header;
        size = good;
        if (unreadable.count() > 0 && unreadable.setAside(file, kept.toByteArray())) {
            size = kept.size();
        }
        openChannel();
        return steps;
    }

    /** Starts the log afresh on top of a new snapshot; a failure is retried by the next append. */
    void restart(long generation) {
        closeChannel();
        try {
            byte[] header = line(MAPPER.createObjectNode().put("generation", generation));
            AtomicFiles.write(file, header);
            fileGeneration = generation;
            size = header.length;
            openChannel();
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Cannot start {} afresh ({}); retried with the next step", file, e.getMessage());
            fileGeneration = Long.MIN_VALUE;
        }
    }

    /** Appends these steps in one write and forces them to disk; throws when they are not durably there. */
    void append(long generation, List<ObjectNode> steps) {
        if (steps.isEmpty()) {
            return;
        }
        if (fileGeneration != generation) {
            restart(generation);
        } else if (channel == null) {
            openChannel();
        }
        if (fileGeneration != generation || channel == null) {
            throw new UncheckedIOException(new IOException("Cannot write " + file));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            for (ObjectNode step : steps) {
                bytes.write(line(step));
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes.toByteArray());
            long at = size;
            while (buffer.hasRemaining()) {
                at += channel.write(buffer, at);
            }
            channel.force(false);
            size = at;
        } catch (IOException e) {
            cutBack();
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    long size() {
        return size;
    }

    /** The snapshot generation the steps read by {@link #open} build on. */
    long generation() {
        return base;
    }

    private void cutBack() {
        try {
            channel.truncate(size);
        } catch (IOException e) {
            // Reopened, and cut back, with the next append.
            closeChannel();
        }
    }

    private void openChannel() {
        try {
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
            channel.truncate(size);
        } catch (IOException e) {
            closeChannel();
            LOG.warn("Cannot open {} ({}); retried with the next step", file, e.getMessage());
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing was pending: every append is forced.
            }
            channel = null;
        }
    }

    private static byte[] line(ObjectNode node) throws IOException {
        byte[] json = MAPPER.writeValueAsBytes(node);
        byte[] line = new byte[json.length + 1];
        System.arraycopy(json, 0, line, 0, json.length);
        line[json.length] = '\n';
        return line;
    }

    private static ObjectNode parse(byte[] bytes, int offset, int length) {
        try {
            return MAPPER.readTree(new String(bytes, offset, length, StandardCharsets.UTF_8)) instanceof ObjectNode o
                    ? o : null;
        } catch (IOException e) {
            return null;
        }
    }
}
