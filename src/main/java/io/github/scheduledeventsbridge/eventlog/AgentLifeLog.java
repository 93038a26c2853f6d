package io.github.scheduledeventsbridge.eventlog;

import io.github.scheduledeventsbridge.platform.Platform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Function;

/**
 * The agent's own life in the Windows Application log ({@link LifeEvent}): started, stopped, a refused configuration,
 * storage and sinks failing and back, its identity unknown. Written on Windows always, also with the Event Log sink
 * off, under the configured source once the settings are read and the default source before (so that the refusal of
 * the very setting that names the source is written too). Elsewhere nothing is written.
 *
 * <p>Process-wide, as the log is: what reports comes before Camel (a refusal) or lives in beans made in many places.
 * It never stops the agent: a write that fails is said once in the log, and the next is tried all the same.
 */
public final class AgentLifeLog {

    private static final Logger LOG = LoggerFactory.getLogger(AgentLifeLog.class);

    private static final Function<String, EventLogWriter> SYSTEM = source -> Platform.current().windows()
            ? new WindowsEventLogWriter(source) : null;

    private static Function<String, EventLogWriter> writers = SYSTEM;
    private static String source = EventLogWriter.DEFAULT_SOURCE;
    private static EventLogWriter writer;
    private static boolean opened;
    private static boolean failing;

    private AgentLifeLog() {
    }

    /** One entry; on Windows only (or to a test's writer). */
    public static synchronized void report(LifeEvent event, String message) {
        try {
            if (!opened) {
                opened = true;
                writer = writers.apply(source);
            }
            if (writer != null) {
                writer.write(EventLogEntry.of(event, message));
                failing = false;
            }
        } catch (Exception | LinkageError e) {
            if (!failing) {
                failing = true;
                LOG.warn("Cannot write to the Windows Event Log (source {}): {}; the log has it all", source, e.toString());
            }
        }
    }

    /** The source the settings name, from the next entry on. */
    public static synchronized void useSource(String configured) {
        if (!configured.equals(source)) {
            closeWriter();
            source = configured;
        }
    }

    /**
     * Tests: every entry to the writer {@code recording} gives for the source (whatever the system), until the returned
     * handle is closed.
     */
    public static synchronized AutoCloseable recordTo(Function<String, EventLogWriter> recording) {
        closeWriter();
        writers = recording;
        return () -> {
            synchronized (AgentLifeLog.class) {
                closeWriter();
                writers = SYSTEM;
                source = EventLogWriter.DEFAULT_SOURCE;
            }
        };
    }

    private static void closeWriter() {
        if (writer != null) {
            writer.close();
        }
        writer = null;
        opened = false;
    }
}
