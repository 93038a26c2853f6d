package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

/**
 * The unreadable lines of one reading of {@link ActionLog} (a disk error, a hand edit): every one counted, the first
 * {@link #MAX_LINES} kept, each cut at {@link #MAX_LINE_BYTES}, and set aside in {@code actions.log.corrupt-<time>}
 * (the newest {@link #MAX_FILES} such files kept) so that the log goes on with its readable lines.
 */
final class UnreadableLines {

    private static final Logger LOG = LoggerFactory.getLogger(ActionLog.class);
    static final int MAX_LINES = 100;
    static final int MAX_LINE_BYTES = 4096;
    static final int MAX_FILES = 5;

    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private int count;
    private boolean cut;

    void add(byte[] bytes, int offset, int length) {
        count++;
        if (count > MAX_LINES) {
            cut = true;
            return;
        }
        cut |= length > MAX_LINE_BYTES;
        kept.write(bytes, offset, Math.min(length, MAX_LINE_BYTES));
        kept.write('\n');
    }

    int count() {
        return count;
    }

    /**
     * Writes the kept lines beside {@code log} and replaces the log with its {@code readable} lines; false when that
     * could not be done (the log then stays as it is, and is read the same way at the next start).
     */
    boolean setAside(Path log, byte[] readable) {
        String prefix = log.getFileName() + ".corrupt-";
        Path aside = log.resolveSibling(prefix + System.currentTimeMillis());
        boolean done;
        try {
            AtomicFiles.write(aside, kept.toByteArray());
            AtomicFiles.write(log, readable);
            LOG.warn("{}: {} unreadable line(s) set aside in {}; the steps before and after them are kept{}", log,
                    count, aside, cut ? " (only the first " + MAX_LINES + " lines, " + MAX_LINE_BYTES
                            + " bytes of each, are kept there)" : "");
            done = true;
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("{}: {} unreadable line(s) skipped; the steps before and after them are kept (they could not be "
                    + "set aside: {})", log, count, e.getMessage());
            done = false;
        }
        removeOldest(log, prefix);
        return done;
    }

    private static void removeOldest(Path log, String prefix) {
        try (var files = Files.list(log.toAbsolutePath().getParent())) {
            List<Path> asides = files.filter(f -> f.getFileName().toString().startsWith(prefix))
                    .sorted(Comparator.comparing((Path f) -> f.getFileName().toString().length())
                            .thenComparing(f -> f.getFileName().toString()))
                    .toList();
            for (int i = 0; i < asides.size() - MAX_FILES; i++) {
                Files.deleteIfExists(asides.get(i));
            }
        } catch (IOException | UncheckedIOException e) {
            // Kept: only disk space is at stake, and the next set-aside tries again.
        }
    }
}
