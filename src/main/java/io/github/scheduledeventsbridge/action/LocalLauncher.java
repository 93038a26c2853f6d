package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.BoundedCommand;
import io.github.scheduledeventsbridge.command.CommandObserver;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
import io.github.scheduledeventsbridge.command.ProcessTree;
import io.github.scheduledeventsbridge.command.RunningProcesses;

import java.time.Duration;

/** Commands as the agent's own children: its user, its unit, its environment without BRIDGE_* variables. */
final class LocalLauncher implements CommandLauncher {

    private final RunningProcesses running = new RunningProcesses();

    @Override
    public CommandResult run(CommandSpec spec, CommandObserver observer) throws InterruptedException {
        return BoundedCommand.run(spec, BoundedCommand.Environment.INHERITED_WITHOUT_BRIDGE, observer, running);
    }

    @Override
    public void stop() {
        for (Process process : running.close(Duration.ofSeconds(10))) {
            ProcessTree.kill(process.toHandle(), ProcessTree.ownSessions());
        }
    }

    @Override
    public String describe() {
        return "as children of the agent" + (ProcessTree.ownSessions() ? ", each in a session of its own" : "");
    }
}
