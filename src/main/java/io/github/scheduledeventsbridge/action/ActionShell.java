package io.github.scheduledeventsbridge.action;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How a command line becomes a process: the words of {@code bridge.action.shell} followed by the command as one
 * last argument ({@code /bin/sh -c <command>}). Empty means this platform's default.
 */
public record ActionShell(List<String> words) {

    public ActionShell {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("a shell needs at least a program");
        }
        words = List.copyOf(words);
    }

    /** {@code bridge.action.shell}: words separated by spaces; empty = {@link #platformDefault(String)}. */
    public static ActionShell parse(String configured) {
        String trimmed = configured == null ? "" : configured.trim();
        if (trimmed.isEmpty()) {
            return new ActionShell(platformDefault(System.getProperty("os.name", "")));
        }
        return new ActionShell(Arrays.asList(trimmed.split("\\s+")));
    }

    /**
     * The one place that knows which operating system runs commands how. Windows gets PowerShell; how the command is
     * passed to it (and quoted) is the Windows port's to refine.
     */
    static List<String> platformDefault(String osName) {
        if (osName.toLowerCase(Locale.ROOT).startsWith("windows")) {
            return List.of("powershell.exe", "-NoProfile", "-NonInteractive", "-Command");
        }
        return List.of("/bin/sh", "-c");
    }

    /** The argument vector for one command. */
    public List<String> argv(String command) {
        List<String> argv = new ArrayList<>(words);
        argv.add(command);
        return argv;
    }

    @Override
    public String toString() {
        return String.join(" ", words);
    }
}
