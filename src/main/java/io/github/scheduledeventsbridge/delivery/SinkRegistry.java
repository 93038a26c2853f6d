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
        Map<String, Long> counts = this.sinks.stream().collect(Collectors.groupingBy(SinkRegistry::baseLabel,
                Collectors.counting()));
        for (Sink sink : this.sinks) {
            String base = baseLabel(sink);
            labels.put(sink.id(), counts.get(base) > 1 ? base + " (" + sink.id() + ")" : base);
        }
    }

    /**
     * A name a person recognises, unique among the sinks, without secrets: {@code webhook hooks.example.com},
     * {@code webhook hooks.example.com:8443}, {@code SMTP mail.example.com:587}, {@code Event Hubs ns/hub}; the
     * sink id is added when two would read the same. For logs, readiness details and metric labels.
     */
    public String label(String sinkId) {
        return labels.getOrDefault(sinkId, sinkId);
    }

    static String baseLabel(Sink sink) {
        String description = sink.description();
        java.util.regex.Matcher url = java.util.regex.Pattern.compile("https?://([^/\\s,]+)").matcher(description);
        if (sink.id().startsWith("webhook") && url.find()) {
            return "webhook " + url.group(1);
        }
        String label = description;
        for (String end : List.of(", ", " (", " to ")) {
            int at = label.indexOf(end);
            if (at > 0) {
                label = label.substring(0, at);
            }
        }
        return label.isBlank() ? sink.id() : label;
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
