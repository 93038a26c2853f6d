package io.github.scheduledeventsbridge.logging;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent's own log files: rolled by size, a bounded number kept, private, and no line lost when a roll is refused. */
class RollingFileHandlerTest {

    private static final int LIMIT = 2_000;

    @TempDir
    Path tmp;

    private static LogRecord line(int n) {
        LogRecord record = new LogRecord(Level.INFO, String.format("line %05d %s", n, "x".repeat(60)));
        record.setLoggerName("io.github.scheduledeventsbridge.test");
        return record;
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    }

    /** The lines of every file kept, oldest file first. */
    private static List<String> all(RollingFileHandler handler, int count) throws IOException {
        List<String> lines = new ArrayList<>();
        for (int generation = count - 1; generation >= 1; generation--) {
            lines.addAll(lines(handler.rolled(generation)));
        }
        lines.addAll(lines(handler.live()));
        return lines;
    }

    private static int number(String line) {
        int at = line.indexOf("line ") + 5;
        return Integer.parseInt(line.substring(at, at + 5));
    }

    @Test
    void filesAreRolledBySizeAndOnlyCountAreKeptTheNewestLinesInOrder() throws IOException {
        Path dir = tmp.resolve("logs");
        RollingFileHandler handler = new RollingFileHandler(dir, LIMIT, 3, new LineFormatter(false));
        IntStream.range(0, 300).forEach(n -> handler.publish(line(n)));
        handler.close();

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder(
                    "scheduled-events-bridge.log", "scheduled-events-bridge.1.log", "scheduled-events-bridge.2.log");
        }
        for (Path file : List.of(handler.live(), handler.rolled(1), handler.rolled(2))) {
            assertThat(Files.size(file)).as(file.toString()).isLessThanOrEqualTo(LIMIT);
        }
        List<Integer> kept = all(handler, 3).stream().map(RollingFileHandlerTest::number).toList();
        assertThat(kept).as("the newest lines, in order, none missing between the files").last().isEqualTo(299);
        assertThat(kept).isEqualTo(IntStream.rangeClosed(kept.get(0), 299).boxed().toList());
        assertThat(kept.size()).as("about three files' worth").isGreaterThan(2 * LIMIT / 150);
    }

    @Test
    void theFolderAndTheFilesArePrivate() throws IOException {
        Path dir = tmp.resolve("logs");
        RollingFileHandler handler = new RollingFileHandler(dir, LIMIT, 3, new LineFormatter(false));
        IntStream.range(0, 100).forEach(n -> handler.publish(line(n)));
        handler.close();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        for (Path file : List.of(handler.live(), handler.rolled(1), handler.rolled(2))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).as(file.toString())
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void aRestartAppendsToTheLiveFileAndCountsWhatIsAlreadyThere() throws IOException {
        Path dir = tmp.resolve("logs");
        RollingFileHandler first = new RollingFileHandler(dir, LIMIT, 3, new LineFormatter(false));
        IntStream.range(0, 10).forEach(n -> first.publish(line(n)));
        first.close();
        RollingFileHandler second = new RollingFileHandler(dir, LIMIT, 3, new LineFormatter(false));
        IntStream.range(10, 20).forEach(n -> second.publish(line(n)));
        second.close();
        assertThat(lines(second.rolled(1)).stream().map(RollingFileHandlerTest::number).toList())
                .as("the first run's lines and the second's up to the limit").startsWith(0, 1, 2);
        assertThat(Files.size(second.rolled(1))).isLessThanOrEqualTo(LIMIT);
        assertThat(all(second, 3).stream().map(RollingFileHandlerTest::number).toList())
                .isEqualTo(IntStream.range(0, 20).boxed().toList());
    }

    @Test
    void onWindowsARollRefusedBecauseAFileIsHeldLosesNoLineAndIsTriedAgainLater() throws IOException {
        try (FileSystem jimfs = Jimfs.newFileSystem(Configuration.windows())) {
            FaultyFileSystem disk = FaultyFileSystem.over(jimfs)
                    .holdOpen(f -> f.getFileName().toString().equals("scheduled-events-bridge.log"), 1);
            Path dir = disk.getPath("C:\\ProgramData\\scheduled-events-bridge\\logs");
            RollingFileHandler handler = new RollingFileHandler(dir, LIMIT, 3, new LineFormatter(false));
            handler.setErrorManager(new java.util.logging.ErrorManager() {
                @Override
                public synchronized void error(String msg, Exception ex, int code) {
                    // expected once: the roll refused
                }
            });
            IntStream.range(0, 35).forEach(n -> handler.publish(line(n)));
            handler.close();
            assertThat(disk.sharingViolations()).as("the live file held once, at the first roll").isEqualTo(1);
            assertThat(Files.size(handler.rolled(1))).as("rolled once the hold was gone, after another limit's worth")
                    .isGreaterThan(LIMIT).isLessThanOrEqualTo(2 * LIMIT);
            assertThat(all(handler, 3).stream().map(RollingFileHandlerTest::number).toList())
                    .isEqualTo(IntStream.range(0, 35).boxed().toList());
            assertThat(handler.rolled(2)).doesNotExist();
        }
    }

    @Test
    void onWindowsTheLiveFileIsOpenedSoThatNoOtherProcessCanDeleteOrRenameIt() {
        assertThat(RollingFileHandler.windowsOptions()).as("NIO would share delete; the JDK's streams and Windows' own "
                + "programs do not").contains(com.sun.nio.file.ExtendedOpenOption.NOSHARE_DELETE,
                java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE);
    }

    @Test
    void switchingToFilesLeavesStandardOutputWithALineSayingWhereTheLogGoesOn() throws IOException {
        Logger logger = Logger.getLogger("io.github.scheduledeventsbridge.test.switch");
        logger.setUseParentHandlers(false);
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        logger.addHandler(new StdoutHandler(stdout, new LineFormatter(false)));
        logger.info("before");
        LogFileSettings settings = new LogFileSettings(java.util.Optional.of(tmp.resolve("logs")), 65_536, 4);
        RollingFileHandler files = BridgeLogging.logTo(settings, logger).orElseThrow();
        logger.info("after");
        files.close();

        String printed = stdout.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("switch - before").contains("The log goes on in " + tmp.resolve("logs")
                .resolve("scheduled-events-bridge.log") + " (rolled at 65536 bytes, 4 files kept) from now on")
                .doesNotContain("switch - after");
        assertThat(Files.readString(files.live())).contains("The log goes on here").contains("switch - after")
                .doesNotContain("switch - before");
        assertThat(logger.getHandlers()).containsExactly(files);
        assertThat(BridgeLogging.logTo(new LogFileSettings(java.util.Optional.empty(), 65_536, 4), logger)).isEmpty();
    }
}
