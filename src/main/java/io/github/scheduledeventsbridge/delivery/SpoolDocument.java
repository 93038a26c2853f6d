package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A spool file holding many messages of one sink, one CloudEvent per line (named {@code <last sequence>.jsonl}):
 * a big document costs one file, not one per message. It leaves the spool once every message in it was
 * delivered or dead-lettered; after a crash the whole file is sent again (duplicates, same ids, never losses).
 */
public final class SpoolDocument {

    /** What {@link #settle} says of a message that had already left. */
    static final int ALREADY_SETTLED = -1;

    private final Path file;
    private final BitSet settled;
    private int undelivered;

    SpoolDocument(Path file, int messages) {
        this.file = file;
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

    /** A sink given at least this many messages by one document gets them in one spool document. */
    static final int MIN_MESSAGES = 8;
    static final String SUFFIX = ".jsonl";
    private static final ObjectMapper MAPPER = new ObjectMapper();

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
}
