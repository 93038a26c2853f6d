package io.github.scheduledeventsbridge.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One log line per record, text or JSON (Elastic Common Schema), with SLF4J's level names: docs/operations.md. Control
 * characters are escaped in every field (docs/security.md), by hand: Jackson leaves DEL, C1 and U+2028/9 as they are.
 * The caller's class and method are never asked for: for a record that lacks them JUL would walk the stack.
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

    /** As printStackTrace prints it, each println's text after its tabs escaped and ended by \n on every platform. */
    private static String stackTrace(Throwable thrown) {
        StringWriter out = new StringWriter(1024);
        thrown.printStackTrace(new PrintWriter(out) {
            @Override
            public void println(Object printed) { // Throwable prints every line through this one
                String text = String.valueOf(printed);
                String afterTabs = text.replaceFirst("^\t+", "");
                String tabs = text.substring(0, text.length() - afterTabs.length());
                write(escape(new StringBuilder(tabs), afterTabs, false).append('\n').toString());
            }
        });
        return out.toString();
    }

    private static void field(StringBuilder line, String name, String value) {
        escape(line.append(",\"").append(name).append("\":\""), value, true).append('"');
    }

    /** C0, DEL, C1, U+2028/9 as \n, \r, \t or \\uXXXX; in a JSON string (RFC 8259) also ", \\, \b and \f. */
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
