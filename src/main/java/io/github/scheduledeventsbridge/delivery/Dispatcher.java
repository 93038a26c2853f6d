package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Copies each recorded transition into the spool of every sink whose filter accepts it. */
public final class Dispatcher {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final SinkRegistry registry;
    private final Spool spool;

    public Dispatcher(SinkRegistry registry, Spool spool) {
        this.registry = registry;
        this.spool = spool;
    }

    public List<SpoolEntry> spool(List<OutboundEvent> events) throws IOException {
        List<SpoolEntry> entries = new ArrayList<>();
        for (Sink sink : registry.sinks()) {
            for (OutboundEvent event : events) {
                if (sink.filter().test(event)) {
                    entries.add(spool.store(sink, event.seq(), MAPPER.writeValueAsBytes(event.cloudEvent())));
                }
            }
        }
        return entries;
    }

    /** Everything waiting in any spool, each sink's oldest first: replayed once at start. */
    public List<SpoolEntry> pending() throws IOException {
        List<SpoolEntry> entries = new ArrayList<>();
        for (Sink sink : registry.sinks()) {
            entries.addAll(spool.pending(sink));
        }
        return entries;
    }
}
