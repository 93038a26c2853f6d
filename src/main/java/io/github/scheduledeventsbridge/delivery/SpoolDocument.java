package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.storage.AtomicFiles;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A spool file holding many messages of one sink, one CloudEvent per line (named {@code <last sequence>.jsonl}):
 * a big document costs one file, not one per message. It leaves the spool once every message in it was
 * delivered or dead-lettered; a graceful stop keeps only the others in it ({@link #keepOnlyWaiting}), while after a
 * crash the whole file is sent again (duplicates, same ids, never losses).
 */
public final class SpoolDocument {

    /** What {@link #settle} says of a message that had already left. */
    static final int ALREADY_SETTLED = -1;

    private final Path file;
    private final int messages;
    private final BitSet settled;
    private int undelivered;
    /** The file holds only the messages that were waiting: its entries' offsets no longer point at their lines. */
    private volatile boolean rewritten;

    SpoolDocument(Path file, int messages) {
        this.file = file;
        this.messages = messages;
        this.settled = new BitSet(messages);
        this.undelivered = messages;
    }

    public Path file() {
        return file;
    }

    /**
     * The message at {@code index} left the spool (delivered or dead-lettered): how many are still waiting (0: the
     * file may go), or {@link #ALREADY_SETTLED} when it had left before.
     */
    synchronized int settle(int index) {
        if (settled.get(index)) {
            return ALREADY_SETTLED;
        }
        settled.set(index);
        return --undelivered;
    }

    /**
     * At a graceful stop: the file rewritten with only the messages still waiting, in their order (a temporary file
     * forced, renamed over the same name, the directory forced: a crash meanwhile leaves the old file or the new one),
     * so that the next start does not send the others again. A message being sent waits until its answer is in; one
     * settled later counts against the new file (when it was the last, the file goes). Returns how many messages were
     * left out: none when none has left yet, or when the file is not the one this document knows (kept whole).
     */
    synchronized int keepOnlyWaiting() throws IOException {
        if (undelivered == 0) {
            AtomicFiles.deleteIfExists(file);
            return 0;
        }
        if (settled.isEmpty()) {
            return 0;
        }
        byte[] content = Files.readAllBytes(file);
        List<int[]> lines = lines(content);
        if (lines.size() != messages) {
            return 0;
        }
        ByteArrayOutputStream waiting = new ByteArrayOutputStream(content.length);
        for (int i = settled.nextClearBit(0); i < messages; i = settled.nextClearBit(i + 1)) {
            waiting.write(content, lines.get(i)[0], lines.get(i)[1] - lines.get(i)[0]);
            waiting.write('\n');
        }
        rewritten = true;
        try {
            AtomicFiles.write(file, waiting.toByteArray(), true);
        } catch (IOException | RuntimeException notRenamed) {
            rewritten = false;
            throw notRenamed;
        }
        AtomicFiles.force(file.getParent());
        return settled.cardinality();
    }

    /** A sink given at least this many messages by one document gets them in one spool document. */
    static final int MIN_MESSAGES = 8;
    static final String SUFFIX = ".jsonl";
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    /** The file's bytes: each message (compact JSON, no line break in it) on a line of its own. */
    static byte[] content(List<byte[]> messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(messages.stream().mapToInt(m -> m.length + 1).sum());
        for (byte[] message : messages) {
            out.writeBytes(message);
            out.write('\n');
        }
        return out.toByteArray();
    }

    /** The messages in a file's bytes, one per non-empty line (a line that is no CloudEvent is dead-lettered). */
    static List<byte[]> messages(byte[] content) {
        return lines(content).stream().map(line -> Arrays.copyOfRange(content, line[0], line[1])).toList();
    }

    /** Where each non-empty line of a file's bytes starts and ends ({start, end}). */
    static List<int[]> lines(byte[] content) {
        List<int[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= content.length; i++) {
            if (i == content.length || content[i] == '\n') {
                if (i > start) {
                    lines.add(new int[]{start, i});
                }
                start = i + 1;
            }
        }
        return lines;
    }

    /**
     * Whether every message in a file's bytes is one of these, in their order: this document as a graceful stop left
     * it ({@link #keepOnlyWaiting}), or cut short at the end of a line.
     */
    static boolean partOf(byte[] content, List<byte[]> messages) {
        int next = 0;
        for (byte[] line : messages(content)) {
            while (next < messages.size() && !Arrays.equals(messages.get(next), line)) {
                next++;
            }
            if (next++ == messages.size()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a file's bytes are a whole document (every line ends and is a JSON object) rather than one a crash cut
     * short before it was on disk.
     */
    static boolean complete(byte[] content) {
        if (content.length == 0 || content[content.length - 1] != '\n') {
            return false;
        }
        try {
            for (byte[] message : messages(content)) {
                if (!MAPPER.readTree(message).isObject()) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException cutShort) {
            return false;
        }
    }

    /** The entries of a document just written: each with its bytes, for its event's lane. */
    static List<SpoolEntry> written(Sink sink, Path file, List<String> eventIds, List<byte[]> payloads) {
        SpoolDocument document = new SpoolDocument(file, payloads.size());
        List<SpoolEntry> entries = new ArrayList<>(payloads.size());
        long offset = 0;
        for (int i = 0; i < payloads.size(); i++) {
            byte[] payload = payloads.get(i);
            entries.add(new SpoolEntry(sink.id(), sink.queueFor(eventIds.get(i)), file, document, i, offset,
                    payload.length, payload));
            offset += payload.length + 1;
        }
        return entries;
    }

    /** A spool document's messages as written (not held in memory: read by {@link #message} when sent). */
    static List<SpoolEntry> replayed(Sink sink, Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        List<int[]> lines = lines(content);
        SpoolDocument document = new SpoolDocument(file, lines.size());
        List<SpoolEntry> entries = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            int[] line = lines.get(i);
            String eventId = sink.lanes() == 1 ? null : EventIds.in(Arrays.copyOfRange(content, line[0], line[1]));
            entries.add(new SpoolEntry(sink.id(), sink.queueFor(eventId), file, document, i, line[0],
                    line[1] - line[0], null));
        }
        return entries;
    }

    /** A spool document's message: the bytes it was written with, or read from its line of the file. */
    static byte[] message(SpoolEntry entry) throws IOException {
        if (entry.payload() != null) {
            return entry.payload();
        }
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(entry.length());
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(entry.file())) {
            // Opened before the rename, the channel reads the old file; after it, the line is elsewhere.
            if (entry.document().rewritten) {
                throw new NoSuchFileException(entry.file().toString(), null, "rewritten at stop with only its waiting "
                        + "messages: line " + entry.index() + ", if it was one, is sent after the next start");
            }
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, entry.offset() + buffer.position()) < 0) {
                    throw new java.io.EOFException(entry.file() + " ends before line " + entry.index());
                }
            }
        }
        return buffer.array();
    }
}
