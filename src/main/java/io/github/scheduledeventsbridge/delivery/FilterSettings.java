package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.util.Locale;
import java.util.Set;

/** Per-sink filter: empty sets mean "all". */
public record FilterSettings(Set<String> transitions, Set<String> eventTypes, boolean ownOnly) {

    public static final Set<String> TRANSITIONS =
            Set.of("Scheduled", "Started", "Rescheduled", "Completed", "Cancelled", "Approved",
                    "ActionSucceeded", "ActionFailed");
    public static final Set<String> EVENT_TYPES = Set.of("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate");

    /** {@code <prefix>.transitions}, {@code .event-types} (comma lists, checked) and {@code .resources}. */
    public static FilterSettings read(SettingsReader r, String prefix, String defaultTransitions,
                                      String defaultEventTypes) {
        Set<String> transitions = r.names(prefix + ".transitions", defaultTransitions, TRANSITIONS);
        Set<String> eventTypes = r.names(prefix + ".event-types", defaultEventTypes, EVENT_TYPES);
        return new FilterSettings(transitions, eventTypes, resources(r, prefix + ".resources").equals("own"));
    }

    /** Whose events: {@code all} or {@code own} (those naming this VM), in any case. */
    public static String resources(SettingsReader r, String key) {
        String resources = r.string(key, "all").toLowerCase(Locale.ROOT);
        if (!resources.equals("all") && !resources.equals("own")) {
            throw new BadConfigurationException(key, "'" + resources + "' is neither 'all' nor 'own'");
        }
        return resources;
    }
}
