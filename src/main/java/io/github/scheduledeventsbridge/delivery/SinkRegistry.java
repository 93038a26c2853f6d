package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.builder.ExpressionBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The sinks configured for this run, and their delivery lanes (routes/sink-lane.yaml). */
public final class SinkRegistry extends RouteBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(SinkRegistry.class);

    /** The one route template every sink's lane comes from (routes/sink-lane.yaml). */
    public static final String LANE_TEMPLATE = "sink-lane";

    private final List<Sink> sinks;

    private final Map<String, String> labels = new java.util.LinkedHashMap<>();

    public SinkRegistry(List<Sink> sinks) {
        this.sinks = List.copyOf(sinks);
        Map<String, Long> counts = this.sinks.stream().collect(Collectors.groupingBy(Sink::label, Collectors.counting()));
        for (Sink sink : this.sinks) {
            labels.put(sink.id(), counts.get(sink.label()) > 1 ? sink.label() + " (" + sink.id() + ")" : sink.label());
        }
    }

    /**
     * The sink's {@link Sink#label() label}, unique among the sinks: the sink id is added when two would read the
     * same ({@code webhook hooks.example.com (webhook-0a1b2c3d4e5f)}). For logs, readiness details and metric labels.
     */
    public String label(String sinkId) {
        return labels.getOrDefault(sinkId, sinkId);
    }

    public List<Sink> sinks() {
        return sinks;
    }

    /**
     * Each sink's lanes from the one template, given the sink itself (the template-local bean {@code sink}, a
     * constant). Bound as a bean, this is a RoutesBuilder Camel Main collects with the other routes: Camel adds the
     * lanes once the template is loaded and starts them with the context, before any message is queued.
     */
    @Override
    public void configure() {
        for (Sink sink : sinks) {
            for (int lane = 0; lane < sink.lanes(); lane++) {
                templatedRoute(LANE_TEMPLATE).routeId(sink.routeId(lane)).parameter("queue", sink.queue(lane))
                        .parameter("attempt", sink.attempt()).bean("sink", ExpressionBuilder.constantExpression(sink));
            }
            LOG.info("Sink {}: {}", sink.id(), sink.description());
        }
        if (sinks.isEmpty()) {
            LOG.info("No sink configured: transitions are only logged");
        }
    }
}
