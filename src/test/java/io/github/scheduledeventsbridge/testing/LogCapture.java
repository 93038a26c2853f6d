package io.github.scheduledeventsbridge.testing;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Everything the agent logs (at the levels it is configured for) while a test runs, with the level. */
public final class LogCapture extends AbstractAppender implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogCapture() {
        super("log-capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
    }

    public static LogCapture install() {
        LogCapture capture = new LogCapture();
        capture.start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().addAppender(capture, null, null);
        context.updateLoggers();
        return capture;
    }

    @Override
    public void append(LogEvent event) {
        Throwable thrown = event.getThrown();
        lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage() + (thrown == null ? "" : " " + thrown));
    }

    public String text() {
        return String.join("\n", lines);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(getName());
        context.updateLoggers();
        stop();
    }
}
