package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
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
    /** The template parameter naming the lane's sink. */
    static final String SINK_ID_PARAMETER = "sinkId";

    private final List<Sink> sinks;
    private final Map<String, Sink> byId;

    private final Map<String, String> labels = new java.util.LinkedHashMap<>();

    public SinkRegistry(List<Sink> sinks) {
        this.sinks = List.copyOf(sinks);
        this.byId = this.sinks.stream().collect(Collectors.toUnmodifiableMap(Sink::id, Function.identity()));
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

    /** Adds each sink's lanes from the one template; done once at start, before any message is queued. */
    public void installRoutes(CamelContext context) throws Exception {
        for (Sink sink : sinks) {
            for (int lane = 0; lane < sink.lanes(); lane++) {
                context.addRouteFromTemplate(sink.routeId(lane), LANE_TEMPLATE,
                        Map.of("queue", sink.queue(lane), SINK_ID_PARAMETER, sink.id(), "attempt", sink.attempt()));
            }
            LOG.info("Sink {}: {}", sink.id(), sink.description());
        }
        if (sinks.isEmpty()) {
            LOG.info("No sink configured: transitions are only logged");
        }
    }

    /** The lane's first step: its sink, carried on the exchange ({@link Sink#PROPERTY}) to every later step. */
    public Sink sink(String sinkId) {
        Sink sink = byId.get(sinkId);
        if (sink == null) {
            throw new IllegalStateException("No sink " + sinkId);
        }
        return sink;
    }
}
