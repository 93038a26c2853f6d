package io.github.scheduledeventsbridge.platform;


import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the agent needs to know of the system it runs on, in one place: where its files go by default, how its
 * environment is read, how it learns the boot time and its host name, whether it is Windows. The agent takes
 * {@link #current()} (or a "platform" bean a test binds: Windows on an in-memory file system); what making files
 * durable and private takes is decided by the file system itself ({@link FileRules}).
 */
public final class Platform {

    static final String PRODUCT = "scheduled-events-bridge";
    private static final Platform CURRENT = new Platform(OperatingSystem.current(), System.getProperty("os.name", ""),
            FileSystems.getDefault(), System.getenv());

    private final OperatingSystem os;
    private final String name;
    private final FileSystem fileSystem;
    private final Map<String, String> environment;

    private Platform(OperatingSystem os, String name, FileSystem fileSystem, Map<String, String> environment) {
        this.os = os;
        this.name = name;
        this.fileSystem = fileSystem;
        this.environment = os == OperatingSystem.WINDOWS ? upperCaseNames(environment) : Map.copyOf(environment);
    }

    /** This JVM's system, its default file system and its environment. */
    public static Platform current() {
        return CURRENT;
    }

    /** Another system, e.g. Windows on an in-memory file system with Windows' path rules (tests). */
    public static Platform of(OperatingSystem os, FileSystem fileSystem, Map<String, String> environment) {
        return new Platform(os, os == OperatingSystem.WINDOWS ? "Windows" : "Linux", fileSystem, environment);
    }

    public OperatingSystem os() {
        return os;
    }

    public boolean windows() {
        return os == OperatingSystem.WINDOWS;
    }

    /** The system's name for messages: this JVM's {@code os.name} (e.g. "Linux", "Windows Server 2022"). */
    public String name() {
        return name;
    }

    /** A configured path, on this platform's file system. */
    public Path path(String value) {
        return fileSystem.getPath(value);
    }

    /**
     * The environment variables, their names as the agent looks them up: on Windows names are case-insensitive
     * ({@code Bridge_Imds_Url} is {@code BRIDGE_IMDS_URL}), so they are upper-cased; on Linux they are as set.
     */
    public Map<String, String> environment() {
        return environment;
    }

    /**
     * The state directory when none is configured: {@code ./data} on Linux (the packages set their own), on Windows
     * {@code %ProgramData%\scheduled-events-bridge}: a service's working directory is System32.
     */
    public String defaultStateDir() {
        return os == OperatingSystem.WINDOWS ? programData() + "\\" + PRODUCT : "./data";
    }

    /** On Windows, {@code %ProgramData%\scheduled-events-bridge\bridge.properties}, read when it exists. */
    public Optional<String> defaultConfigFile() {
        return os == OperatingSystem.WINDOWS ? Optional.of(defaultStateDir() + "\\bridge.properties") : Optional.empty();
    }

    /** The kernel's {@code btime} on Linux; now minus the tick count on Windows. */
    public BootTime bootTime() {
        return os == OperatingSystem.WINDOWS ? WindowsBootTime.kernel32() : BootTime.procStat(fileSystem.getPath("/proc/stat"));
    }

    /**
     * This machine's host name as the system has it, or empty: the kernel's ({@code /proc/sys/kernel/hostname}) on
     * Linux, else {@code COMPUTERNAME} (Windows sets it).
     */
    public Optional<String> hostName() {
        String name = null;
        if (!windows()) {
            try {
                Path kernel = fileSystem.getPath("/proc/sys/kernel/hostname");
                if (Files.isReadable(kernel)) {
                    name = Files.readString(kernel);
                }
            } catch (IOException | RuntimeException e) {
                // not readable: the environment may say
            }
        }
        if (name == null || name.isBlank()) {
            name = environment.get("COMPUTERNAME");
        }
        return name == null || name.isBlank() ? Optional.empty() : Optional.of(name);
    }

    private String programData() {
        String value = environment.get("PROGRAMDATA");
        return value == null || value.isBlank() ? "C:\\ProgramData" : value.strip();
    }

    private static Map<String, String> upperCaseNames(Map<String, String> environment) {
        Map<String, String> names = new LinkedHashMap<>();
        environment.forEach((name, value) -> names.putIfAbsent(name.toUpperCase(Locale.ROOT), value));
        return Map.copyOf(names);
    }
}
