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
 *
 * <p>One record is one line, whatever its fields hold: a message, thread name or exception message may carry text
 * from outside (an IMDS EventId, a command's output, a peer's answer), so control characters are escaped in every
 * field ({@code \n}, {@code \r}, {@code \t}, {@code \u001b}, ...); only a stack trace's own frames start lines.
 * (Hand-escaped rather than by Jackson's generator: that one leaves DEL, C1 and U+2028/9 as they are.)
 */
public final class LineFormatter extends Formatter {

    private static final DateTimeFormatter TEXT_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss,SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter JSON_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

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
        return value >= Level.SEVERE.intValue() ? "ERROR" : value >= Level.WARNING.intValue() ? "WARN"
                : value >= Level.INFO.intValue() ? "INFO" : value >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
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
            escape(line.append(' ').append(level).append(level.length() == 4 ? "  [" : " ["), thread, false);
            escape(line.append("] "), logger.substring(logger.lastIndexOf('.') + 1), false);
            escape(line.append(" - "), message, false).append('\n');
            return (thrown == null ? line : line.append(stackTrace(thrown))).toString();
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
            thrown.printStackTrace(new PrintWriter(trace));
            field(line, "error.stack_trace", trace.toString());
        }
        return line.append("}\n").toString();
    }

    /**
     * A text line's stack trace: as {@link Throwable#printStackTrace()} prints it, one println per line, each line's
     * text after its leading tabs escaped (so that a throwable's message cannot start a line of its own) and ended
     * by \n on every platform.
     */
    private static String stackTrace(Throwable thrown) {
        StringWriter out = new StringWriter(1024);
        thrown.printStackTrace(new PrintWriter(out) {
            @Override
            public void println(String text) {
                println((Object) text);
            }

            @Override
            public void println(Object printed) {
                String text = String.valueOf(printed);
                int tabs = 0;
                while (tabs < text.length() && text.charAt(tabs) == '\t') {
                    tabs++;
                }
                write(escape(new StringBuilder(text.substring(0, tabs)), text.substring(tabs), false).append('\n').toString());
            }
        });
        return out.toString();
    }

    private static void field(StringBuilder line, String name, String value) {
        escape(line.append(",\"").append(name).append("\":\""), value, true).append('"');
    }

    /**
     * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators as {@code \n}, {@code \r},
     * {@code \t} or {@code \}{@code uXXXX}, everything else as is; in a JSON string (RFC 8259) also the quote and
     * the backslash, and {@code \b}, {@code \f}.
     */
    private static StringBuilder escape(StringBuilder out, String value, boolean json) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean plainAscii = c >= ' ' && c < 0x7f && c != '"' && c != '\\';
            int shortForm = plainAscii ? -1 : (json ? "\n\r\t\b\f\"\\" : "\n\r\t").indexOf(c);
            if (shortForm >= 0) {
                out.append('\\').append("nrtbf\"\\".charAt(shortForm));
            } else if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out;
    }
}
