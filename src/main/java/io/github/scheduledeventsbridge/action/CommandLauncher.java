package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.CommandObserver;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
/** Where commands run: as the agent's own children, or handed to an action host over a Unix-domain socket. */
interface CommandLauncher {

    /** Runs it to its end or its timeout; an interrupt (the agent stopping) ends it and is passed on. */
    CommandResult run(CommandSpec spec, CommandObserver observer) throws InterruptedException;

    /** The agent stops: every command still running is ended (it runs again at the next start). */
    void stop();

    /** For the start-up line. */
    String describe();

    static CommandLauncher of(ActionSettings settings) {
        return settings.hostSocket().isEmpty() ? new LocalLauncher()
                : new HostSocketLauncher(java.nio.file.Path.of(settings.hostSocket()));
    }
}
