package io.github.scheduledeventsbridge.command;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One command to run: its argument vector (shell included), the SEB_* variables, the bytes for its standard input,
 * how long it may run, and the label its output lines carry in the log ({@code prepare <EventId>}).
 */
public record CommandSpec(List<String> argv, Map<String, String> environment, byte[] stdin, Duration timeout,
                          String label) {

    public CommandSpec {
        argv = List.copyOf(argv);
        Map<String, String> safe = new LinkedHashMap<>();
        environment.forEach((k, v) -> safe.put(k, safeValue(v)));
        environment = java.util.Collections.unmodifiableMap(safe);
    }

    /**
     * An environment value as a process can take it: a NUL cannot be passed at all (the JDK refuses the whole
     * environment), and control characters (line breaks included) would let an IMDS field forge lines in a script's
     * own output or in files it writes. Each becomes a space; everything else is kept.
     */
    public static String safeValue(String value) {
        if (value == null) {
            return "";
        }
        StringBuilder safe = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            int type = Character.getType(c);
            boolean unsafe = type == Character.CONTROL || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR;
            if (unsafe && safe == null) {
                safe = new StringBuilder(value.length()).append(value, 0, i);
            }
            if (safe != null) {
                safe.append(unsafe ? ' ' : c);
            }
        }
        return safe == null ? value : safe.toString();
    }
}
