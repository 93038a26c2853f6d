package io.github.scheduledeventsbridge.command;

import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * A command's output cut into lines within fixed bounds, whatever the command prints: a line is kept up to
 * {@link #MAX_LINE_BYTES} (the rest up to its newline is dropped without being held), a run passes on at most
 * {@link #BUDGET_BYTES} and at most {@link #LINES_PER_SECOND} lines a second after a burst of {@link #BURST_LINES}.
 * Everything beyond is counted and reported once at the end. Memory stays one line buffer, so one 40 MB line without
 * a newline costs 4 KiB, and {@code yes} cannot flood the log.
 */
public final class OutputLimiter {

    public static final int MAX_LINE_BYTES = 4096;
    public static final long BUDGET_BYTES = 256 * 1024;
    public static final int BURST_LINES = 1000;
    public static final int LINES_PER_SECOND = 100;

    private final CommandObserver observer;
    private final LongSupplier nanoTime;
    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int length;
    private long cut;
    private boolean pending;
    private long passed;
    private long droppedBytes;
    private long droppedLines;
    private double tokens = BURST_LINES;
    private long refilled;

    public OutputLimiter(CommandObserver observer) {
        this(observer, System::nanoTime);
    }

    public OutputLimiter(CommandObserver observer, LongSupplier nanoTime) {
        this.observer = observer;
        this.nanoTime = nanoTime;
        this.refilled = nanoTime.getAsLong();
    }

    public void accept(byte[] buffer, int offset, int count) {
        for (int i = offset; i < offset + count; i++) {
            byte b = buffer[i];
            if (b == '\n') {
                endLine(1);
            } else {
                pending = true;
                if (length < MAX_LINE_BYTES) {
                    line[length++] = b;
                } else {
                    cut++;
                }
            }
        }
    }

    /** The end of the output: a last line without newline is passed on, and what was dropped is reported. */
    public void finish() {
        if (pending) {
            endLine(0);
        }
        if (droppedBytes > 0) {
            observer.dropped(droppedBytes, droppedLines);
        }
    }

    private void endLine(int newline) {
        int kept = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        long size = length + cut + newline;
        if (passed + length <= BUDGET_BYTES && takeToken()) {
            String text = new String(line, 0, kept, StandardCharsets.UTF_8);
            observer.line(cut == 0 ? text : text + " … (" + cut + " more bytes of this line dropped)");
            passed += length;
            droppedBytes += cut;
        } else {
            droppedBytes += size;
            droppedLines++;
        }
        length = 0;
        cut = 0;
        pending = false;
    }

    private boolean takeToken() {
        long now = nanoTime.getAsLong();
        tokens = Math.min(BURST_LINES, tokens + (now - refilled) * LINES_PER_SECOND / 1e9);
        refilled = now;
        if (tokens < 1) {
            return false;
        }
        tokens--;
        return true;
    }
}
