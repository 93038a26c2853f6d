package io.github.scheduledeventsbridge.delivery.eventlog;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.eventlog.EventLogWriter;

import java.util.regex.Pattern;

/** The Windows Event Log sink: on or off, the source its entries carry, and which transitions it writes. */
public record EventLogSettings(boolean enabled, String source, FilterSettings filter) {

    public static final String DEFAULT_SOURCE = EventLogWriter.DEFAULT_SOURCE;
    /** A source is a registry key name under the log's key: no backslash, no control character. */
    private static final Pattern SOURCE = Pattern.compile("[^\\\\\\p{Cntrl}]{1,200}");

    public static EventLogSettings read(SettingsReader r) {
        boolean enabled = r.bool("bridge.eventlog.enabled", false);
        String source = r.string("bridge.eventlog.source", DEFAULT_SOURCE).strip();
        if (!SOURCE.matcher(source).matches()) {
            throw new BadConfigurationException("bridge.eventlog.source", "'" + source + "' is not an Event Log source "
                    + "name (1 to 200 characters, no backslash)");
        }
        return new EventLogSettings(enabled, source, FilterSettings.read(r, "bridge.eventlog.filter", "", ""));
    }

    /** The sink's label. */
    public String label() {
        return "Windows Event Log";
    }

    @Override
    public String toString() {
        return enabled ? label() + " (Application, source " + source + ")" : label() + " disabled";
    }
}
