package io.github.scheduledeventsbridge.windows;

import java.util.Map;

/**
 * The agent's own settings (its secrets among them) are not a prepare or recover command's business. Windows treats
 * environment names without regard to case, and the agent reads {@code bridge_webhook_secret} there as it reads
 * {@code BRIDGE_WEBHOOK_SECRET}, so every spelling goes; on Linux a lower-case {@code bridge_*} variable is no setting
 * of the agent's, and removing it from a command's environment loses nothing the command was promised.
 */
public final class ChildEnvironment {

    private static final String PREFIX = "BRIDGE_";

    private ChildEnvironment() {
    }

    /** Removes every {@code BRIDGE_*} variable, in any case, from a child's environment (e.g. ProcessBuilder's). */
    public static void removeAgentSettings(Map<String, String> environment) {
        environment.keySet().removeIf(ChildEnvironment::isAgentSetting);
    }

    static boolean isAgentSetting(String name) {
        return name.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }
}
