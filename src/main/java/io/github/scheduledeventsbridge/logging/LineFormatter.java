package io.github.scheduledeventsbridge.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
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
 *
 * <p>One record is one line, whatever its fields hold: a message, thread name or exception message may carry text
 * from outside (an IMDS EventId, a command's output, a peer's answer), so control characters are escaped in every
 * field ({@code \n}, {@code \r}, {@code \t}, {@code \u001b}, ...); only a stack trace's own frames start lines.
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
            line.append(" [");
            escapeControls(line, thread);
            line.append("] ");
            escapeControls(line, logger.substring(logger.lastIndexOf('.') + 1));
            line.append(" - ");
            escapeControls(line, message);
            line.append('\n');
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
            // One JSON string: its line breaks are escaped with it, so the throwable's text is kept as it is.
            StringWriter trace = new StringWriter();
            try (PrintWriter writer = new PrintWriter(trace)) {
                thrown.printStackTrace(writer);
            }
            field(line, "error.stack_trace", trace.toString());
        }
        return line.append("}\n").toString();
    }

    /**
     * A text line's stack trace: as {@link Throwable#printStackTrace()} prints it, each throwable's own text (its
     * message) escaped, so that a message cannot start a line of its own.
     */
    static String stackTrace(Throwable thrown) {
        StringBuilder out = new StringBuilder(1024);
        trace(out, thrown, new StackTraceElement[0], "", "", Collections.newSetFromMap(new IdentityHashMap<>()));
        return out.toString();
    }

    private static void trace(StringBuilder out, Throwable t, StackTraceElement[] enclosing, String caption,
                              String prefix, Set<Throwable> seen) {
        out.append(prefix).append(caption);
        if (!seen.add(t)) {
            out.append("[CIRCULAR REFERENCE: ");
            escapeControls(out, String.valueOf(t));
            out.append("]\n");
            return;
        }
        escapeControls(out, String.valueOf(t));
        out.append('\n');
        StackTraceElement[] frames = t.getStackTrace();
        int own = frames.length - 1;
        for (int shared = enclosing.length - 1; own >= 0 && shared >= 0 && frames[own].equals(enclosing[shared]); shared--) {
            own--;
        }
        for (int i = 0; i <= own; i++) {
            out.append(prefix).append("\tat ").append(frames[i]).append('\n');
        }
        if (own < frames.length - 1) {
            out.append(prefix).append("\t... ").append(frames.length - 1 - own).append(" more\n");
        }
        for (Throwable suppressed : t.getSuppressed()) {
            trace(out, suppressed, frames, "Suppressed: ", prefix + "\t", seen);
        }
        if (t.getCause() != null) {
            trace(out, t.getCause(), frames, "Caused by: ", prefix, seen);
        }
    }

    /**
     * A text line's field: control characters (C0, DEL, C1) and the Unicode line and paragraph separators as
     * {@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX}; everything else as is.
     */
    public static void escapeControls(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!isControl(c)) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                unicodeEscape(out, c);
            }
        }
    }

    /** The same as a String. */
    public static String escapeControls(String value) {
        if (value == null || value.chars().noneMatch(c -> isControl((char) c))) {
            return value;
        }
        StringBuilder out = new StringBuilder(value.length() + 16);
        escapeControls(out, value);
        return out.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029';
    }

    private static void unicodeEscape(StringBuilder out, char c) {
        out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
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
                    if (isControl(c)) {
                        unicodeEscape(out, c);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }
}
