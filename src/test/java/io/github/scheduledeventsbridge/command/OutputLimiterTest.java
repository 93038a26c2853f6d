package io.github.scheduledeventsbridge.command;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class OutputLimiterTest {

    private final AtomicLong now = new AtomicLong();
    private final RecordingObserver seen = new RecordingObserver();
    private final List<String> lines = seen.lines;
    private final OutputLimiter limiter = new OutputLimiter(seen, now::get);

    private void feed(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        limiter.accept(bytes, 0, bytes.length);
    }

    @Test
    void linesAreSplitOnNewlinesWithCarriageReturnsRemovedAndTheLastOneKeptWithoutNewline() {
        feed("one\r\ntw");
        feed("o\n\nthree");
        limiter.finish();
        assertThat(lines).containsExactly("one", "two", "", "three");
        assertThat(seen.droppedBytes).isZero();
    }

    @Test
    void aHugeLineKeepsOnlyItsStartAndTheRestIsCountedWithoutBeingHeld() {
        byte[] chunk = new byte[1 << 20];
        java.util.Arrays.fill(chunk, (byte) 'x');
        for (int i = 0; i < 45; i++) {
            limiter.accept(chunk, 0, chunk.length);
        }
        feed("\nnext\n");
        limiter.finish();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("x".repeat(OutputLimiter.MAX_LINE_BYTES))
                .endsWith("(" + (45L * chunk.length - OutputLimiter.MAX_LINE_BYTES) + " more bytes of this line dropped)");
        assertThat(lines.get(1)).isEqualTo("next");
        assertThat(seen.droppedBytes).isEqualTo(45L * chunk.length - OutputLimiter.MAX_LINE_BYTES);
    }

    @Test
    void aFloodOfLinesIsCutToTheBurstThenTheRateAndTheRestIsReportedOnce() {
        for (int i = 0; i < 1_000_000; i++) {
            feed("x\n");
        }
        now.addAndGet(2_000_000_000L);
        for (int i = 0; i < 1_000; i++) {
            feed("y\n");
        }
        limiter.finish();
        assertThat(lines).hasSize(OutputLimiter.BURST_LINES + 2 * OutputLimiter.LINES_PER_SECOND);
        assertThat(seen.droppedLines).isEqualTo(1_001_000 - lines.size());
        assertThat(seen.droppedBytes).isEqualTo(2 * seen.droppedLines);
    }

    @Test
    void aRunLogsAtMostItsByteBudget() {
        String line = "z".repeat(OutputLimiter.MAX_LINE_BYTES - 1) + "\n";
        for (int i = 0; i < 200; i++) {
            now.addAndGet(1_000_000_000L);
            feed(line);
        }
        limiter.finish();
        assertThat(lines).hasSize((int) (OutputLimiter.BUDGET_BYTES / (OutputLimiter.MAX_LINE_BYTES - 1)));
        assertThat(seen.droppedLines).isEqualTo(200 - lines.size());
    }
}
