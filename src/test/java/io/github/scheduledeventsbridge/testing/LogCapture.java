package io.github.scheduledeventsbridge.testing;

import io.github.scheduledeventsbridge.logging.LineFormatter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/** Everything the agent logs (at the levels it is configured for) while a test runs, with the level. */
public final class LogCapture extends Handler implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final SimpleFormatter messages = new SimpleFormatter();

    private LogCapture() {
    }

    public static LogCapture install() {
        LogCapture capture = new LogCapture();
        Logger.getLogger("").addHandler(capture);
        return capture;
    }

    /** {@code LEVEL message[ throwable]}, the level named as in the log (ERROR, WARN, INFO, ...). */
    @Override
    public void publish(LogRecord record) {
        Throwable thrown = record.getThrown();
        lines.add(LineFormatter.levelName(record.getLevel()) + " " + messages.formatMessage(record)
                + (thrown == null ? "" : " " + thrown));
    }

    public String text() {
        return String.join("\n", lines);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
