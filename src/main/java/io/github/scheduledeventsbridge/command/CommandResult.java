package io.github.scheduledeventsbridge.command;

import java.time.Duration;

/**
 * How a command ended. {@code outcome} is {@code succeeded}, {@code failed} or {@code timed-out}; {@code exitCode} is
 * null when there is none (never started, killed); {@code failure} says why it could not run at all (null otherwise).
 */
public record CommandResult(String outcome, Integer exitCode, Duration took, String failure) {

    public static final String SUCCEEDED = "succeeded";
    public static final String FAILED = "failed";
    public static final String TIMED_OUT = "timed-out";

    public static CommandResult exited(int exitCode, Duration took) {
        return new CommandResult(exitCode == 0 ? SUCCEEDED : FAILED, exitCode, took, null);
    }

    public static CommandResult timedOut(Duration took) {
        return new CommandResult(TIMED_OUT, null, took, null);
    }

    public static CommandResult notRun(String why, Duration took) {
        return new CommandResult(FAILED, null, took, why);
    }

    public boolean succeeded() {
        return SUCCEEDED.equals(outcome);
    }
}
