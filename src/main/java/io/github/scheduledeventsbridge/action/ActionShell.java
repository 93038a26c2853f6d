package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.windows.PowerShellCommand;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How a command line becomes a process: the words of {@code bridge.action.shell} followed by the command as one
 * last argument ({@code /bin/sh -c <command>}), or PowerShell's encoded form. Empty means this platform's default.
 */
public record ActionShell(List<String> words) {

    public ActionShell {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("a shell needs at least a program");
        }
        words = List.copyOf(words);
    }

    /**
     * {@code bridge.action.shell}: empty = {@link #platformDefault(Platform)}; a PowerShell named in full (e.g.
     * {@code C:\Program Files\PowerShell\7\pwsh.exe}) is one program, spaces and all; a program in double quotes
     * is one word; the rest are words separated by spaces.
     *
     * @throws IllegalArgumentException when the value cannot name a program (the message says why and what to write)
     */
    public static ActionShell parse(String configured, Platform platform) {
        String trimmed = configured == null ? "" : configured.trim();
        if (trimmed.isEmpty()) {
            return new ActionShell(platformDefault(platform));
        }
        if (MANGLED_WINDOWS_PATH.matcher(trimmed).lookingAt()) {
            throw new IllegalArgumentException("'" + trimmed + "' is a Windows path whose backslashes were taken as "
                    + "escapes (as a properties file reads them): write it with / (C:/Program Files/...) or \\\\");
        }
        if (PowerShellCommand.isPowerShell(trimmed)) {
            return new ActionShell(List.of(PowerShellCommand.locate(unquoted(trimmed), platform)));
        }
        List<String> words = new ArrayList<>();
        String rest = trimmed;
        if (trimmed.startsWith("\"")) {
            int end = trimmed.indexOf('"', 1);
            if (end < 0) {
                throw new IllegalArgumentException("'" + trimmed + "': the quote before the program is not closed");
            }
            words.add(trimmed.substring(1, end));
            rest = trimmed.substring(end + 1).trim();
        }
        if (!rest.isEmpty()) {
            words.addAll(Arrays.asList(rest.split("\\s+")));
        }
        return new ActionShell(words);
    }

    /** A drive letter and colon followed by neither separator: {@code C:\Program Files} read from a properties file. */
    private static final Pattern MANGLED_WINDOWS_PATH = Pattern.compile("\"?[A-Za-z]:[^\\\\/]");

    private static String unquoted(String value) {
        return value.length() > 1 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1) : value;
    }

    /**
     * The one place that knows how each system runs commands: Windows PowerShell 5.1 by its full path (under the
     * platform's {@code %SystemRoot%}) on Windows, {@code /bin/sh -c} elsewhere.
     */
    static List<String> platformDefault(Platform platform) {
        if (platform.windows()) {
            return List.of(PowerShellCommand.windowsPowerShell(platform.environment()));
        }
        return List.of("/bin/sh", "-c");
    }

    /**
     * The argument vector for one command. A shell that is a PowerShell alone ({@code powershell}, {@code pwsh}, by
     * name or path) gets the command encoded ({@code -EncodedCommand}), so that no quoting rule can change it.
     *
     * @throws IllegalArgumentException when the command cannot be passed (too long for a Windows command line)
     */
    public List<String> argv(String command) {
        if (words.size() == 1 && PowerShellCommand.isPowerShell(words.get(0))) {
            return PowerShellCommand.argv(words.get(0), command);
        }
        List<String> argv = new ArrayList<>(words);
        argv.add(command);
        return argv;
    }

    @Override
    public String toString() {
        return String.join(" ", words);
    }
}
