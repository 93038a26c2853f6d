package io.github.scheduledeventsbridge.windows;

import io.github.scheduledeventsbridge.platform.Platform;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An operator's command as the argument vector of Windows PowerShell 5.1 ({@code powershell.exe}, on every Windows
 * Server) or PowerShell 7 ({@code pwsh.exe}): {@code -NoProfile -NonInteractive -ExecutionPolicy Bypass
 * -EncodedCommand <base64 of the UTF-16LE text>}. Windows hands a process one command line that each program splits
 * by its own rules; base64 has no quote, space, {@code $} or backtick, so no character of the command can be read as
 * anything but itself, whichever quoting rules apply. In the command, the SEB_* variables are {@code $env:SEB_EVENT_ID}
 * and so on; the transition's CloudEvent is on standard input ({@code [Console]::In.ReadToEnd() | ConvertFrom-Json}).
 */
public final class PowerShellCommand {

    /**
     * CreateProcess takes at most 32,767 characters of command line, its terminating NUL included. The encoded command
     * is ~2.7 characters per character of the command, so a command of about 12,000 characters is the most that fits.
     */
    public static final int MAX_COMMAND_LINE = 32_766;

    /**
     * Run before the command: standard input and output as UTF-8 (Windows PowerShell uses the console's OEM code page,
     * so the agent, which reads UTF-8, would log a non-ASCII line garbled, and the CloudEvent would be read garbled).
     * Without a console (none can be had) the defaults stay.
     */
    static final String PROLOGUE = "try { [Console]::InputEncoding = [System.Text.UTF8Encoding]::new($false); "
            + "[Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false) } catch { }\n";

    /**
     * How a command runs a script from the folder install.ps1 makes for them ({@code actions\} in the data folder,
     * readable by the service, writable only by administrators), as docs/windows.md shows it.
     */
    static final String SCRIPT_EXAMPLE = "& \"$env:ProgramData\\scheduled-events-bridge\\actions\\prepare.ps1\"";

    private static final List<String> FLAGS = List.of("-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
            "-EncodedCommand");
    private static final List<String> NAMES = List.of("powershell", "powershell.exe", "pwsh", "pwsh.exe");

    private PowerShellCommand() {
    }

    /**
     * The argument vector for {@code program} (a PowerShell, see {@link #isPowerShell}) running {@code command}.
     *
     * @throws IllegalArgumentException when the command line would be longer than Windows allows: the message says so
     *                                  and what to do instead (a script file)
     */
    public static List<String> argv(String program, String command) {
        List<String> argv = new java.util.ArrayList<>();
        argv.add(program);
        argv.addAll(FLAGS);
        argv.add(encode(PROLOGUE + command));
        int length = commandLineLength(argv);
        if (length > MAX_COMMAND_LINE) {
            throw new IllegalArgumentException("is " + command.length() + " characters long: encoded for PowerShell "
                    + "(-EncodedCommand, UTF-16LE in base64) it makes a command line of " + length
                    + " characters, over Windows' limit of 32,767; put the commands in a .ps1 file and run that file "
                    + "instead, kept in the installer's actions folder, e.g. " + SCRIPT_EXAMPLE);
        }
        return List.copyOf(argv);
    }

    /** Whether a shell setting names Windows PowerShell or PowerShell 7 (a bare name or a path, any case). */
    public static boolean isPowerShell(String program) {
        String name = program.strip();
        if (name.length() > 1 && name.startsWith("\"") && name.endsWith("\"")) {
            name = name.substring(1, name.length() - 1);
        }
        name = name.substring(Math.max(name.lastIndexOf('\\'), name.lastIndexOf('/')) + 1);
        return NAMES.contains(name.toLowerCase(Locale.ROOT));
    }

    /**
     * Windows PowerShell 5.1 by its full path under {@code %SystemRoot%}, so that no {@code powershell.exe} earlier in
     * the PATH is run instead. {@code environment} is the agent's (its names are case-insensitive on Windows).
     */
    public static String windowsPowerShell(Map<String, String> environment) {
        String root = environment.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase("SystemRoot") && !e.getValue().isBlank())
                .map(Map.Entry::getValue).findFirst().orElse("C:\\Windows");
        return stripTrailingSeparator(root) + "\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";
    }

    /**
     * The program to run for a PowerShell setting. On Windows {@code pwsh} by name is looked for where the service can
     * see it: on the PATH the agent was started with (Windows gives a service the machine's PATH as it was at boot, so
     * a PowerShell 7 installed since is not on it until a reboot), then in PowerShell 7's own folder under
     * {@code %ProgramFiles%}; its full path is used from then on. Anything else is taken as it is.
     *
     * @throws IllegalArgumentException when {@code pwsh} is found in neither place: the message says what to do
     */
    public static String locate(String program, Platform platform) {
        String name = program.strip().toLowerCase(Locale.ROOT);
        if (!platform.windows() || !(name.equals("pwsh") || name.equals("pwsh.exe"))) {
            return program.strip();
        }
        Map<String, String> environment = platform.environment();
        List<String> candidates = new java.util.ArrayList<>();
        for (String dir : environment.getOrDefault("PATH", "").split(";")) {
            String folder = dir.replace("\"", "").strip(); // Windows takes a quoted PATH entry
            if (!folder.isEmpty()) {
                candidates.add(stripTrailingSeparator(folder) + "\\pwsh.exe");
            }
        }
        String pwsh7 = stripTrailingSeparator(environment.getOrDefault("PROGRAMFILES", "C:\\Program Files").strip())
                + "\\PowerShell\\7\\pwsh.exe";
        candidates.add(pwsh7);
        for (String candidate : candidates) {
            try {
                if (Files.isRegularFile(platform.path(candidate))) {
                    return candidate;
                }
            } catch (InvalidPathException e) {
                // a PATH entry that is no path: not there
            }
        }
        throw new IllegalArgumentException("pwsh is neither on the service's PATH (Windows gives a service the PATH it "
                + "had when Windows started: a PowerShell 7 installed since is on it only after a reboot) nor at "
                + pwsh7 + ": install PowerShell 7, or name pwsh.exe by its full path (with / or \\\\ in bridge.properties)");
    }

    /** What {@code -EncodedCommand} takes: the UTF-16LE bytes of the text, in base64. */
    static String encode(String script) {
        return Base64.getEncoder().encodeToString(script.getBytes(StandardCharsets.UTF_16LE));
    }

    /** The inverse of {@link #encode}, as PowerShell does it. */
    static String decode(String encoded) {
        return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_16LE);
    }

    /**
     * The command line Java's process launcher on Windows makes of {@code argv}: arguments separated by one space,
     * those with a space or tab (or empty) in double quotes.
     */
    static int commandLineLength(List<String> argv) {
        int length = argv.size() - 1;
        for (String argument : argv) {
            boolean quoted = argument.isEmpty() || argument.indexOf(' ') >= 0 || argument.indexOf('\t') >= 0;
            length += argument.length() + (quoted ? 2 : 0);
        }
        return length;
    }

    private static String stripTrailingSeparator(String path) {
        return path.endsWith("\\") || path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
