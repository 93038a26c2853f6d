package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.logging.Redaction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whatever Camel health checks are registered, invoked and written as JSON:
 * {@code {"status":"UP","checks":[{"id":…,"group":…,"status":…,"message":…,"details":{…}}]}}.
 */
final class HealthReport {

    enum Kind { LIVENESS, READINESS, ALL }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Details that only repeat the check's id, group and kind. */
    private static final java.util.Set<String> REPEATED =
            java.util.Set.of(HealthCheck.CHECK_ID, HealthCheck.CHECK_GROUP, HealthCheck.CHECK_KIND);

    final boolean up;
    final String json;

    private HealthReport(boolean up, String json) {
        this.up = up;
        this.json = json;
    }

    /**
     * Checks are invoked afresh. {@code details} false gives the status alone, {@code {"status":"UP"}}: what
     * anonymous probes get, naming no sink, route or reason.
     */
    static HealthReport of(CamelContext context, Kind kind, boolean details) {
        boolean running = context.getStatus().isStarted();
        // Exposure level "full": Camel's default would show the first check only while all are UP.
        Collection<HealthCheck.Result> results = switch (kind) {
            case LIVENESS -> HealthCheckHelper.invoke(context, check -> Map.of(HealthCheck.CHECK_KIND,
                    HealthCheck.Kind.LIVENESS), check -> !check.isLiveness(), "full");
            case READINESS -> HealthCheckHelper.invoke(context, check -> Map.of(HealthCheck.CHECK_KIND,
                    HealthCheck.Kind.READINESS), check -> !check.isReadiness(), "full");
            case ALL -> HealthCheckHelper.invoke(context, check -> Map.of(), check -> false, "full");
        };
        boolean up = running;
        for (HealthCheck.Result result : results) {
            up &= result.getState() == HealthCheck.State.UP;
        }
        if (!details) {
            return new HealthReport(up, up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
        }
        ObjectNode body = JSON.createObjectNode().put("status", up ? "UP" : "DOWN")
                .put("version", io.github.scheduledeventsbridge.BridgeVersion.current())
                .put("commit", io.github.scheduledeventsbridge.BridgeVersion.commit())
                .put("camelContext", context.getStatus().name());
        ArrayNode checks = body.putArray("checks");
        for (HealthCheck.Result result : sorted(results)) {
            ObjectNode check = checks.addObject().put("id", result.getCheck().getId())
                    .put("group", result.getCheck().getGroup()).put("status", result.getState().name());
            result.getMessage().ifPresent(m -> check.put("message", redact(m)));
            result.getError().ifPresent(e -> check.put("error", e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + redact(e.getMessage()))));
            Map<String, Object> values = new TreeMap<>(result.getDetails());
            values.keySet().removeAll(REPEATED);
            if (!values.isEmpty()) {
                ObjectNode shown = check.putObject("details");
                values.forEach((key, value) -> shown.putPOJO(key, jsonValue(value)));
            }
        }
        return new HealthReport(up, body.toPrettyString());
    }

    private static List<HealthCheck.Result> sorted(Collection<HealthCheck.Result> results) {
        List<HealthCheck.Result> list = new ArrayList<>(results);
        list.sort(Comparator.comparing((HealthCheck.Result r) -> String.valueOf(r.getCheck().getGroup()))
                .thenComparing(r -> r.getCheck().getId()));
        return list;
    }

    private static Object jsonValue(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            return value;
        }
        return redact(String.valueOf(value));
    }

    /** Webhook URLs often carry their secret in the path or query (Slack, Teams): only their host is shown. */
    static String redact(String text) {
        return Redaction.redactUrlsIn(text);
    }
}
