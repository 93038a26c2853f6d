package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.logging.Redaction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;

import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Whatever Camel health checks are registered, invoked and written as JSON:
 * {@code {"status":"UP","checks":[{"id":…,"group":…,"status":…,"message":…,"details":{…}}]}}.
 */
record HealthReport(boolean up, String json) {

    private static final ObjectMapper JSON = io.github.scheduledeventsbridge.json.Json.MAPPER;
    /** Details that only repeat the check's id, group and kind. */
    private static final Set<String> REPEATED = Set.of(HealthCheck.CHECK_ID, HealthCheck.CHECK_GROUP, HealthCheck.CHECK_KIND);

    /** Invoked afresh; without {@code details} the status alone, what anonymous probes get. */
    static HealthReport of(CamelContext context, HealthCheck.Kind kind, boolean details) {
        boolean running = context.getStatus().isStarted();
        // Exposure level "full": Camel's default would show the first check only while all are UP.
        Collection<HealthCheck.Result> results = switch (kind) {
            case LIVENESS -> HealthCheckHelper.invokeLiveness(context, "full");
            case READINESS -> HealthCheckHelper.invokeReadiness(context, "full");
            case ALL -> HealthCheckHelper.invoke(context, "full");
        };
        boolean up = running && results.stream().allMatch(result -> result.getState() == HealthCheck.State.UP);
        if (!details) {
            return new HealthReport(up, up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
        }
        ObjectNode body = JSON.createObjectNode().put("status", up ? "UP" : "DOWN").put("version", BridgeVersion.current())
                .put("commit", BridgeVersion.commit()).put("camelContext", context.getStatus().name());
        ArrayNode checks = body.putArray("checks");
        results.stream().sorted(Comparator.comparing((HealthCheck.Result r) -> String.valueOf(r.getCheck().getGroup()))
                .thenComparing(r -> r.getCheck().getId())).forEach(result -> {
            ObjectNode check = checks.addObject().put("id", result.getCheck().getId())
                    .put("group", result.getCheck().getGroup()).put("status", result.getState().name());
            // Webhook URLs often carry their secret in the path or query (Slack, Teams): only their host is shown.
            result.getMessage().ifPresent(m -> check.put("message", Redaction.redactUrlsIn(m)));
            result.getError().ifPresent(e -> check.put("error", e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Redaction.redactUrlsIn(e.getMessage()))));
            Map<String, Object> values = new TreeMap<>(result.getDetails());
            values.keySet().removeAll(REPEATED);
            if (!values.isEmpty()) {
                ObjectNode shown = check.putObject("details");
                values.forEach((key, value) -> shown.putPOJO(key, value == null || value instanceof Number
                        || value instanceof Boolean ? value : Redaction.redactUrlsIn(String.valueOf(value))));
            }
        });
        return new HealthReport(up, body.toPrettyString());
    }
}
