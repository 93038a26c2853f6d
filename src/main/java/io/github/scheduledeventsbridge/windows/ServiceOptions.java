package io.github.scheduledeventsbridge.windows;

import java.util.ArrayList;
import java.util.List;

/**
 * The Windows service's settings for Apache Commons Daemon procrun (the zip's {@code scheduled-events-bridge.exe}):
 * the arguments that follow {@code //IS//scheduled-events-bridge} or {@code //US//…}. install.ps1 gets them from
 * {@code InstallPlanner service} on the VM's Java (standard output, no file) and hands them to procrun, so the JVM
 * options come from the same {@code jvm.options} (a JDK argument file) that every other launcher reads. procrun runs
 * the agent inside its own process ({@code --StartMode=jvm}), calling {@code BridgeApplication.start} (which returns
 * once the agent has stopped) and, on a service stop or a shutdown of Windows, {@code BridgeApplication.stop}, the
 * same graceful stop as SIGTERM.
 */
public record ServiceOptions(String installDir, String dataDir, String jvmDll, List<String> jvmOptions) {

    public static final String SERVICE = "scheduled-events-bridge";
    static final String MAIN_CLASS = "io.github.scheduledeventsbridge.BridgeApplication";
    /** Seconds BridgeApplication.stop waits for the agent's graceful stop (Camel's shutdown-timeout is 10 s). */
    static final int STOP_WAIT_SECONDS = 20;
    /** Seconds procrun waits for the JVM once stop was called, before it ends the process. */
    static final int STOP_TIMEOUT_SECONDS = 30;

    public ServiceOptions {
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** procrun's arguments, each {@code --Name=value} (or {@code ++Name=value}: appended to a list). */
    public List<String> procrunArguments() {
        List<String> arguments = new ArrayList<>(List.of(
                "--DisplayName=Azure Scheduled Events bridge",
                "--Description=Forwards Azure Scheduled Events (IMDS) to webhooks, Event Hubs, email and the Event Log, "
                        + "and runs prepare and recover commands on this VM",
                "--Startup=auto",
                "--Jvm=" + jvmDll,
                "--Classpath=" + installDir + "\\" + SERVICE + ".jar",
                "--StartMode=jvm",
                "--StartClass=" + MAIN_CLASS,
                "--StartMethod=start",
                "--StopMode=jvm",
                "--StopClass=" + MAIN_CLASS,
                "--StopMethod=stop",
                "--StopParams=" + STOP_WAIT_SECONDS,
                "--StopTimeout=" + STOP_TIMEOUT_SECONDS,
                // The working directory: the agent's relative paths (./config/application.properties) land here.
                "--StartPath=" + dataDir,
                "--LogPath=" + dataDir + "\\logs",
                "--LogPrefix=procrun",
                "--LogLevel=Info",
                // Standard output and error, to logs\scheduled-events-bridge-stdout.DATE.log and -stderr: one file per
                // service start (procrun never rolls it), for what is printed before the agent's own log is open (a
                // refusal at start, a JVM that cannot start).
                "--StdOutput=auto",
                "--StdError=auto",
                // -Xrs, procrun's own default: the JVM leaves Ctrl+C, logoff and shutdown to procrun, which calls stop.
                "--JvmOptions=-Xrs"));
        for (String option : jvmOptions) {
            if (!option.startsWith("--")) {
                arguments.add(listItem("++JvmOptions=", option));
            }
        }
        // The first with "--": it replaces what an earlier install left (procrun's "++" appends, so a re-install
        // would otherwise pile them up).
        List<String> java9 = java9Options();
        for (int i = 0; i < java9.size(); i++) {
            arguments.add(listItem(i == 0 ? "--JvmOptions9=" : "++JvmOptions9=", java9.get(i)));
        }
        for (String option : List.of(
                "-Dbridge.config=" + dataDir + "\\bridge.properties",
                "-Dbridge.state.dir=" + dataDir,
                // Standard output and files in UTF-8 (Java 17 would use the ANSI code page), as on Linux.
                "-Dfile.encoding=UTF-8",
                "-Dsun.stdout.encoding=UTF-8",
                "-Dsun.stderr.encoding=UTF-8",
                // The service account's own temporary directory is not where an operator looks: JNA's and Jetty's
                // files stay beside the state, private to the service.
                "-Djava.io.tmpdir=" + dataDir + "\\tmp")) {
            arguments.add(listItem("++JvmOptions=", option));
        }
        return arguments;
    }

    /** The options only a Java 9 or later takes ({@code --add-opens…}): procrun keeps them in a list of their own. */
    public List<String> java9Options() {
        return jvmOptions.stream().filter(o -> o.startsWith("--")).toList();
    }

    /**
     * procrun splits a list at {@code #} and {@code ;} unless they are inside single quotes; a value holding a single
     * quote cannot be written at all.
     */
    static String listItem(String name, String value) {
        if (value.indexOf('\'') >= 0) {
            throw new IllegalArgumentException("JVM option " + value + " contains a single quote, which procrun "
                    + "cannot take in a JVM option");
        }
        boolean separators = value.indexOf('#') >= 0 || value.indexOf(';') >= 0;
        return name + (separators ? "'" + value + "'" : value);
    }

    /**
     * The options of a JDK argument file, read as the {@code java} launcher reads {@code @file}: words separated by
     * white space, {@code #} at the start of a word comments out the rest of its line, {@code "…"} and {@code '…'}
     * keep white space, and inside them a backslash escapes the next character ({@code \n}, {@code \t}, {@code \r},
     * {@code \f} as in Java).
     */
    public static List<String> readArgumentFile(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && i + 1 < text.length()) {
                    char next = text.charAt(++i);
                    word.append(switch (next) {
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        case 'f' -> '\f';
                        default -> next;
                    });
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else if (c == '#' && word == null) {
                while (i + 1 < text.length() && text.charAt(i + 1) != '\n' && text.charAt(i + 1) != '\r') {
                    i++;
                }
            } else {
                if (word == null) {
                    word = new StringBuilder();
                }
                if (c == '"' || c == '\'') {
                    quote = c;
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("a quote (" + quote + ") is not closed");
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
