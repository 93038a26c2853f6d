package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.windows.PowerShellCommand;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /** {@code bridge.action.shell}: words separated by spaces; empty = {@link #platformDefault(Platform)}. */
    public static ActionShell parse(String configured, Platform platform) {
        String trimmed = configured == null ? "" : configured.trim();
        if (trimmed.isEmpty()) {
            return new ActionShell(platformDefault(platform));
        }
        return new ActionShell(Arrays.asList(trimmed.split("\\s+")));
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
