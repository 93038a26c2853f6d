package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * docs/actions-and-drain.md: the operator's prepare and recover commands, how and where they run (the shell; the agent's
 * own children, or an action host behind a Unix-domain socket), approval after a successful prepare, and the drain
 * signal. Empty commands and an empty drain port mean off.
 */
public record ActionSettings(String prepareCommand, Set<String> prepareEventTypes, String recoverCommand,
                             Duration timeout, ActionShell shell, String hostSocket, boolean approveAfterPrepare,
                             String drainHost, Integer drainPort, Duration drainLeadTime,
                             int drainMaxConnections, Duration drainRequestTimeout) {

    public boolean any() {
        return !prepareCommand.isBlank() || !recoverCommand.isBlank();
    }

    public boolean drainEnabled() {
        return drainPort != null;
    }

    /** The command configured for {@code prepare} or {@code recover} (empty: none). */
    public String command(String action) {
        return action.equals(ActionRunner.PREPARE) ? prepareCommand : recoverCommand;
    }

    public static ActionSettings read(SettingsReader r) {
        String prepare = r.string("bridge.action.prepare.command", "").trim();
        boolean after = r.bool("bridge.approval.auto.after-prepare", false);
        if (after && prepare.isEmpty()) {
            throw new BadConfigurationException("bridge.approval.auto.after-prepare",
                    "true needs bridge.action.prepare.command (nothing would ever be approved)");
        }
        String hostSocket = r.string("bridge.action.host-socket", "").trim();
        if (!hostSocket.isEmpty() && !Path.of(hostSocket).isAbsolute()) {
            throw new BadConfigurationException("bridge.action.host-socket", hostSocket + " is not an absolute path");
        }
        ActionShell shell;
        try {
            shell = ActionShell.parse(r.string("bridge.action.shell", ""), r.platform());
        } catch (IllegalArgumentException e) {
            throw new BadConfigurationException("bridge.action.shell", e.getMessage());
        }
        for (String key : List.of("bridge.action.prepare.command", "bridge.action.recover.command")) {
            String command = r.string(key, "").trim();
            try {
                if (!command.isEmpty()) {
                    shell.argv(command);
                }
            } catch (IllegalArgumentException e) {
                throw new BadConfigurationException(key, e.getMessage());
            }
        }
        Path program = r.platform().path(shell.words().get(0));
        // With an action host the shell is the host's to find, as its user: nothing to check from here. The platform's
        // default is the system's own (Windows PowerShell under %SystemRoot%).
        boolean configured = !r.string("bridge.action.shell", "").isBlank();
        if (configured && hostSocket.isEmpty() && program.isAbsolute() && !Files.isExecutable(program)) {
            throw new BadConfigurationException("bridge.action.shell", program + " is not an executable file");
        }
        String port = r.string("bridge.drain.port", "").trim();
        long drainMax = r.positiveLong("bridge.drain.max-connections", 64);
        if (drainMax > 1024) {
            throw new BadConfigurationException("bridge.drain.max-connections",
                    drainMax + " is above 1024 (each connection holds an 8 KiB buffer and a file descriptor)");
        }
        return new ActionSettings(prepare,
                r.names("bridge.action.prepare.event-types", "all", FilterSettings.EVENT_TYPES),
                r.string("bridge.action.recover.command", "").trim(),
                r.millis("bridge.action.timeout", 300_000),
                shell,
                hostSocket,
                after,
                r.resolvableHost("bridge.drain.host", "0.0.0.0"),
                port.isEmpty() ? null : r.port("bridge.drain.port", 0),
                r.millis("bridge.drain.lead-time", 300_000),
                (int) drainMax,
                r.millis("bridge.drain.request-timeout", 5_000));
    }
}
