package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The sinks configured for this run, and the installation of one delivery route per sink. */
public final class SinkRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(SinkRegistry.class);

    private final List<Sink> sinks;

    public SinkRegistry(List<Sink> sinks) {
        this.sinks = List.copyOf(sinks);
    }

    public List<Sink> sinks() {
        return sinks;
    }

    /** Adds a route per sink from its template; done once at start, before any message is queued. */
    public void installRoutes(CamelContext context) throws Exception {
        for (Sink sink : sinks) {
            Map<String, Object> parameters = new HashMap<>(sink.templateParameters());
            parameters.put("queue", sink.queue());
            parameters.put("sinkId", sink.id());
            context.addRouteFromTemplate(sink.routeId(), sink.routeTemplate(), parameters);
            LOG.info("Sink {}: {}", sink.id(), sink.description());
        }
        if (sinks.isEmpty()) {
            LOG.info("No sink configured: transitions are only logged");
        }
    }
}
