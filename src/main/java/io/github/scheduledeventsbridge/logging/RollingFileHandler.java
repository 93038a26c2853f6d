package io.github.scheduledeventsbridge.logging;

import io.github.scheduledeventsbridge.platform.FileRules;

import com.sun.nio.file.ExtendedOpenOption;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.logging.ErrorManager;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * The agent's log in files it rolls itself: {@value #LIVE} is written until the next line would take it past the size
 * limit, then it becomes {@code scheduled-events-bridge.1.log} (the older ones move up one, the oldest is deleted)
 * and a new live file is started; {@code count} files are kept, the live one included. New files are made as the state
 * files are ({@link FileRules}): 0600 in a 0700 folder where permissions are POSIX; on Windows they inherit the
 * folder's ACL (the installer's: SYSTEM, Administrators, the service), and a rename keeps it. Written on the platform's
 * file system (NIO), one flushed line at a time.
 *
 * <p>A roll that Windows refuses (a reader holding a file without sharing delete) does not lose a line: the live file
 * goes on growing and the roll is tried again once another {@code limit} bytes are written. Nothing is logged from
 * here (this handler would be called again): errors go to JUL's ErrorManager, on standard error.
 */
public final class RollingFileHandler extends Handler {

    public static final String LIVE = "scheduled-events-bridge.log";
    private static final String ROLLED = "scheduled-events-bridge.%d.log";

    private final Path dir;
    private final long limit;
    private final int count;
    private OutputStream out;
    private long written;

    public RollingFileHandler(Path dir, long limit, int count, Formatter formatter) throws IOException {
        this.dir = dir;
        this.limit = limit;
        this.count = count;
        setFormatter(formatter);
        setLevel(Level.ALL); // the loggers' levels decide
        FileRules.of(dir).createDirectories(dir);
        open();
    }

    public static RollingFileHandler of(LogFileSettings settings, Formatter formatter) throws IOException {
        return new RollingFileHandler(settings.dir().orElseThrow(), settings.fileSize(), settings.fileCount(), formatter);
    }

    public Path live() {
        return dir.resolve(LIVE);
    }

    Path rolled(int generation) {
        return dir.resolve(String.format(ROLLED, generation));
    }

    @Override
    public synchronized void publish(LogRecord record) {
        if (out == null || !isLoggable(record)) {
            return;
        }
        byte[] line;
        try {
            line = getFormatter().format(record).getBytes(StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            reportError(null, e, ErrorManager.FORMAT_FAILURE);
            return;
        }
        try {
            if (written > 0 && written + line.length > limit) {
                roll();
            }
            out.write(line);
            out.flush();
            written += line.length;
        } catch (IOException e) {
            reportError(null, e, ErrorManager.WRITE_FAILURE);
        }
    }

    /** Closes the live file, moves every file up one generation, and starts a new live file. */
    private void roll() throws IOException {
        out.close();
        out = null;
        boolean rolled = false;
        try {
            if (count > 1) {
                Files.deleteIfExists(rolled(count - 1));
                for (int generation = count - 2; generation >= 1; generation--) {
                    if (Files.exists(rolled(generation))) {
                        Files.move(rolled(generation), rolled(generation + 1), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                Files.move(live(), rolled(1), StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.delete(live());
            }
            rolled = true;
        } catch (IOException e) {
            reportError("cannot roll " + live() + ": going on in it, trying again after another " + limit + " bytes",
                    e, ErrorManager.GENERIC_FAILURE);
        }
        open();
        if (!rolled) {
            written = 0;
        }
    }

    private void open() throws IOException {
        Path live = live();
        if (WINDOWS && live.getFileSystem() == FileSystems.getDefault()) {
            out = Channels.newOutputStream(Files.newByteChannel(live, windowsOptions()));
            written = Files.size(live);
        } else if (Files.exists(live)) {
            out = Channels.newOutputStream(Files.newByteChannel(live, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND));
            written = Files.size(live);
        } else {
            out = Channels.newOutputStream(FileRules.of(live).createExclusively(live));
            written = 0;
        }
    }

    /**
     * How the live file is opened on Windows: NIO lets other processes delete or rename a file it holds open
     * (FILE_SHARE_DELETE), and a log deleted while written goes on into a file nobody can see; without that share mode,
     * as the JDK's FileOutputStream and Windows programs open files, it cannot be deleted or renamed until it is rolled.
     */
    static Set<OpenOption> windowsOptions() {
        return Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                ExtendedOpenOption.NOSHARE_DELETE);
    }

    /** The default file system is Windows' (only there does NOSHARE_DELETE mean something; elsewhere it is refused). */
    private static final boolean WINDOWS = FileSystems.getDefault().getSeparator().equals("\\");

    @Override
    public synchronized void flush() {
        try {
            if (out != null) {
                out.flush();
            }
        } catch (IOException e) {
            reportError(null, e, ErrorManager.FLUSH_FAILURE);
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException e) {
            reportError(null, e, ErrorManager.CLOSE_FAILURE);
        } finally {
            out = null;
        }
    }
}
