package io.github.scheduledeventsbridge.eventlog;

/**
 * Where Event Log entries go, the agent's own ({@link AgentLifeLog}) and the Event Log sink's: the Windows Event Log
 * ({@link WindowsEventLogWriter}), or a recording one in tests. A sink's write that throws is retried by the sink's
 * lane, as every sink's failed delivery is.
 */
public interface EventLogWriter extends AutoCloseable {

    /** The source entries carry unless {@code bridge.eventlog.source} names another. */
    String DEFAULT_SOURCE = "scheduled-events-bridge";

    void write(EventLogEntry entry) throws Exception;

    @Override
    default void close() {
    }
}
