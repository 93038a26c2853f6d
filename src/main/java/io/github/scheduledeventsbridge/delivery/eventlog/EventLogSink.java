package io.github.scheduledeventsbridge.delivery.eventlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.eventlog.EventLogWriter;
import io.github.scheduledeventsbridge.eventlog.WindowsEventLogWriter;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.apache.camel.Body;

import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * The Windows Event Log sink: one entry per transition and per action outcome in the Application log, with a fixed
 * event id per kind ({@link EventLogKind}). Like every sink it has its own spool and lane (routes/sink-lane.yaml),
 * whose attempts are routes/eventlog-sink.yaml: an entry is removed from the spool once the Event Log took it, so it
 * is written at least once (twice if the agent dies between the write and the removal).
 */
public final class EventLogSink {

    public static final String ID = "eventlog";
    /** A writer bound under this name (tests: a recording one) is used instead of the Windows Event Log. */
    public static final String WRITER_BEAN = "eventLogWriter";

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private final EventLogWriter writer;

    /** {@code writer} null: the sink is off. */
    public EventLogSink(EventLogWriter writer) {
        this.writer = writer;
    }

    public static Sink create(EventLogSettings settings, Predicate<OutboundEvent> filter) {
        return new Sink(ID, settings.label(), settings + ", " + filter, "direct:eventlog-attempt", Sink.Target.NONE, filter, false, 1);
    }

    /** Attempt step: the spooled CloudEvent becomes one entry; an exception leaves it in the spool, to be retried. */
    public void write(@Body byte[] cloudEvent) throws Exception {
        if (writer == null) {
            throw new IllegalStateException("the Event Log sink is off (bridge.eventlog.enabled=false)");
        }
        String json = new String(cloudEvent, StandardCharsets.UTF_8);
        JsonNode parsed = MAPPER.readTree(json);
        writer.write(EventLogKind.entry(parsed, json));
    }

    /** The Windows Event Log of this machine, or one clear refusal where the platform has none. */
    public static EventLogWriter systemWriter(EventLogSettings settings, Platform platform) {
        requireWindows(platform);
        return new WindowsEventLogWriter(settings.source());
    }

    public static void requireWindows(Platform platform) {
        if (!platform.windows()) {
            throw new BadConfigurationException("bridge.eventlog.enabled", "true needs Windows (it writes to the "
                    + "Windows Event Log) and this is " + platform.name() + ": set it to false, or use another sink");
        }
    }

    public void close() {
        if (writer != null) {
            writer.close();
        }
    }
}
