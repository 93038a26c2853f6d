package io.github.scheduledeventsbridge.logging;

import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.StreamHandler;

/** Every record as one {@link LineFormatter} line on standard output (not JUL's standard error), in UTF-8, flushed. */
public final class StdoutHandler extends StreamHandler {

    /** The handler logging.properties names. */
    public StdoutHandler() {
        this(System.out, new LineFormatter(LineFormatter.jsonConfigured()));
    }

    StdoutHandler(OutputStream out, LineFormatter formatter) {
        super(out, formatter);
        setLevel(Level.ALL); // the loggers' levels decide, not a handler level of INFO
        try {
            setEncoding("UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("every JDK has UTF-8", e);
        }
    }

    @Override
    public synchronized void publish(LogRecord record) {
        super.publish(record);
        flush();
    }

    /** Flushes only: standard output stays open for whoever writes after. */
    @Override
    public synchronized void close() {
        flush();
    }
}
