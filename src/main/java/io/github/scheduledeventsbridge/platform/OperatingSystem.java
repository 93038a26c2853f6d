package io.github.scheduledeventsbridge.platform;

import java.util.Locale;

/** The two kinds of system the agent knows: Windows, and Linux (which stands for every POSIX system). */
public enum OperatingSystem {
    LINUX, WINDOWS;

    private static final OperatingSystem CURRENT = named(System.getProperty("os.name"));

    /** This JVM's, told once from {@code os.name}. */
    public static OperatingSystem current() {
        return CURRENT;
    }

    static OperatingSystem named(String osName) {
        return osName != null && osName.toLowerCase(Locale.ROOT).startsWith("windows") ? WINDOWS : LINUX;
    }
}
