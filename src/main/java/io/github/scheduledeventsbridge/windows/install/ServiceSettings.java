package io.github.scheduledeventsbridge.windows.install;

import io.github.scheduledeventsbridge.config.ConfigKeys;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * What install.ps1 sets up around the service from its settings: the Event Log source and the firewall rules. A
 * setting may be in bridge.properties or a machine-wide {@code BRIDGE_*} variable, which wins as it does in the agent
 * ({@code BRIDGE_APPROVAL_SECRET} set machine-wide opens the approval port too). Such a variable reaches the service
 * only after Windows restarts (services get the environment the Service Control Manager read at boot), so each one
 * is named with that warning.
 */
public final class ServiceSettings {

    static final String DEFAULT_SOURCE = "scheduled-events-bridge";
    private static final Set<String> LOOPBACK = Set.of("", "127.0.0.1", "localhost", "::1");

    private final Properties file;
    private final Map<String, String> machineVariables;

    public ServiceSettings(Properties file, Map<String, String> machineVariables) {
        this.file = file;
        this.machineVariables = Map.copyOf(machineVariables);
    }

    /** The plan's lines: {@code event-source}, {@code firewall LABEL PORT} and {@code warn TEXT}. */
    public List<String> plan() {
        List<String> plan = new ArrayList<>();
        String source = value("bridge.eventlog.source");
        plan.add("event-source\t" + (source.isEmpty() ? DEFAULT_SOURCE : source));
        Map<String, String> ports = new LinkedHashMap<>();
        // bridge.approval.http.enabled=false: approvals come from a queue, no approval port listens.
        if (!value("bridge.approval.secret").isEmpty() && !"false".equalsIgnoreCase(value("bridge.approval.http.enabled"))) {
            ports.put("approval API", orDefault(value("bridge.approval.port"), "8089"));
        }
        if (!value("bridge.drain.port").isEmpty()) {
            ports.put("drain signal", value("bridge.drain.port"));
        }
        if (!LOOPBACK.contains(value("bridge.management.host"))) {
            ports.put("management", orDefault(value("bridge.management.port"), "8080"));
        }
        ports.forEach((label, port) -> plan.add("firewall\t" + label + "\t" + port));
        machineVariables.keySet().stream().sorted().forEach(name -> plan.add("warn\t" + name + " is set for the whole "
                + "machine: the service sees it, and any change of it, only after Windows restarts. Set it in "
                + "bridge.properties instead, or restart Windows after install.ps1"));
        return plan;
    }

    private String value(String key) {
        String variable = null;
        for (Map.Entry<String, String> entry : machineVariables.entrySet()) {
            // Windows variable names are case-insensitive.
            if (entry.getKey().equalsIgnoreCase(ConfigKeys.environmentName(key))) {
                variable = entry.getValue();
            }
        }
        String value = variable != null ? variable : file.getProperty(key, "");
        return value.strip();
    }

    private static String orDefault(String value, String fallback) {
        return value.isEmpty() ? fallback : value;
    }
}
