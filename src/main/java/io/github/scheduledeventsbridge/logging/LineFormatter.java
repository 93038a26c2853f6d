package io.github.scheduledeventsbridge.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One log line per record, as the agent has always written them. Text:
 * {@code 2026-11-23T01:05:36,191Z INFO  [main] AbstractCamelContext - message}, the stack trace of an exception
 * on the lines after. JSON: one Elastic Common Schema object per line ({@code @timestamp}, {@code ecs.version},
 * {@code log.level}, {@code message}, {@code process.thread.name}, {@code log.logger}, and {@code error.*} for an
 * exception). Levels carry SLF4J's names (ERROR, WARN, INFO, DEBUG, TRACE), not JUL's.
 * The caller's class and method are never asked for: for a record that lacks them JUL would walk the stack.
 */
public final class LineFormatter extends Formatter {

    private static final DateTimeFormatter TEXT_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss,SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter JSON_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final boolean json;

    public LineFormatter(boolean json) {
        this.json = json;
    }

    /** JSON when -Dbridge.log.format=json, or when that is unset and BRIDGE_LOG_FORMAT=json; else text. */
    public static boolean jsonConfigured() {
        String property = System.getProperty("bridge.log.format");
        return "json".equals(property != null ? property : System.getenv("BRIDGE_LOG_FORMAT"));
    }

    /** SLF4J's name for a JUL level: SEVERE ERROR, WARNING WARN, INFO, CONFIG and FINE DEBUG, finer TRACE. */
    public static String levelName(Level level) {
        int value = level.intValue();
        if (value >= Level.SEVERE.intValue()) {
            return "ERROR";
        }
        if (value >= Level.WARNING.intValue()) {
            return "WARN";
        }
        if (value >= Level.INFO.intValue()) {
            return "INFO";
        }
        return value >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
    }

    @Override
    public String format(LogRecord record) {
        String level = levelName(record.getLevel());
        String logger = record.getLoggerName() == null ? "" : record.getLoggerName();
        // The handler publishes on the thread that logged; JUL records keep only its id.
        String thread = Thread.currentThread().getName();
        String message = String.valueOf(formatMessage(record));
        Throwable thrown = record.getThrown();
        StringBuilder line = new StringBuilder(128 + message.length());
        if (!json) {
            TEXT_TIME.formatTo(record.getInstant(), line);
            line.append(' ').append(level);
            for (int i = level.length(); i < 5; i++) {
                line.append(' ');
            }
            line.append(" [").append(thread).append("] ").append(logger.substring(logger.lastIndexOf('.') + 1))
                    .append(" - ").append(message).append('\n');
            if (thrown != null) {
                line.append(stackTrace(thrown));
            }
            return line.toString();
        }
        line.append("{\"@timestamp\":\"");
        JSON_TIME.formatTo(record.getInstant(), line);
        line.append("\",\"ecs.version\":\"1.2.0\",\"log.level\":\"").append(level).append('"');
        field(line, "message", message);
        field(line, "process.thread.name", thread);
        field(line, "log.logger", logger);
        if (thrown != null) {
            field(line, "error.type", thrown.getClass().getName());
            if (thrown.getMessage() != null) {
                field(line, "error.message", thrown.getMessage());
            }
            field(line, "error.stack_trace", stackTrace(thrown));
        }
        return line.append("}\n").toString();
    }

    private static String stackTrace(Throwable thrown) {
        StringWriter trace = new StringWriter();
        try (PrintWriter writer = new PrintWriter(trace)) {
            thrown.printStackTrace(writer);
        }
        return trace.toString();
    }

    private static void field(StringBuilder line, String name, String value) {
        line.append(",\"").append(name).append("\":\"");
        escape(line, value);
        line.append('"');
    }

    /** A JSON string's content (RFC 8259): quote, backslash and the control characters escaped, the rest as is. */
    static void escape(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }
}
