package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The sinks configured for this run, and the installation of one delivery lane per sink. */
public final class SinkRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(SinkRegistry.class);

    /** The one route template every sink's lane comes from (routes/sink-lane.yaml). */
    public static final String LANE_TEMPLATE = "sink-lane";
    public static final String SINK_ID_PROPERTY = "sinkId";

    private final List<Sink> sinks;
    private final Map<String, Sink> byId;

    public SinkRegistry(List<Sink> sinks) {
        this.sinks = List.copyOf(sinks);
        this.byId = this.sinks.stream().collect(Collectors.toUnmodifiableMap(Sink::id, Function.identity()));
    }

    public List<Sink> sinks() {
        return sinks;
    }

    /** Adds a lane per sink from the one template; done once at start, before any message is queued. */
    public void installRoutes(CamelContext context) throws Exception {
        for (Sink sink : sinks) {
            context.addRouteFromTemplate(sink.routeId(), LANE_TEMPLATE,
                    Map.of("queue", sink.queue(), SINK_ID_PROPERTY, sink.id(), "attempt", sink.attempt()));
            LOG.info("Sink {}: {}", sink.id(), sink.description());
        }
        if (sinks.isEmpty()) {
            LOG.info("No sink configured: transitions are only logged");
        }
    }

    /** Lane step before each attempt: the sink's own settings become the exchange properties its attempt route reads. */
    public void prepareAttempt(@ExchangeProperty(SINK_ID_PROPERTY) String sinkId, Exchange exchange) {
        Sink sink = byId.get(sinkId);
        if (sink == null) {
            throw new IllegalStateException("No sink " + sinkId);
        }
        sink.attemptProperties().forEach(exchange::setProperty);
    }
}
