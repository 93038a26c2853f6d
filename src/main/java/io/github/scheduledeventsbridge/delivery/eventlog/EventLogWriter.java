package io.github.scheduledeventsbridge.delivery.eventlog;

/**
 * Where the Event Log sink's entries go: the Windows Event Log ({@link WindowsEventLogWriter}), or a recording one in
 * tests. A write that throws is retried by the sink's lane, as every sink's failed delivery is.
 */
public interface EventLogWriter extends AutoCloseable {

    void write(EventLogEntry entry) throws Exception;

    @Override
    default void close() {
    }
}
