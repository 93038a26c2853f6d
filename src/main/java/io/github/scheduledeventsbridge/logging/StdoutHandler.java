package io.github.scheduledeventsbridge.logging;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.ErrorManager;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * Every record as one {@link LineFormatter} line on standard output (JUL's ConsoleHandler writes to standard
 * error), in UTF-8 whatever the platform encoding, flushed at once. Text or JSON as {@code bridge.log.format} /
 * {@code BRIDGE_LOG_FORMAT} say when the handler is made.
 */
public final class StdoutHandler extends Handler {

    private final OutputStream out;

    /** The handler logging.properties names. */
    public StdoutHandler() {
        this(System.out, new LineFormatter(LineFormatter.jsonConfigured()));
    }

    StdoutHandler(OutputStream out, LineFormatter formatter) {
        this.out = out;
        setFormatter(formatter);
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) {
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
            synchronized (out) { // whole lines, even from several threads
                out.write(line);
                out.flush();
            }
        } catch (IOException e) {
            reportError(null, e, ErrorManager.WRITE_FAILURE);
        }
    }

    @Override
    public void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            reportError(null, e, ErrorManager.FLUSH_FAILURE);
        }
    }

    /** Flushes only: standard output stays open for whoever writes after. */
    @Override
    public void close() {
        flush();
    }
}
