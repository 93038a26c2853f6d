package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Which transitions one sink wants: by transition, by event type, and optionally only events naming
 * this VM. An empty set means "all". Until the VM's name is known, "own" lets everything through, as
 * the global filter does: a missed reboot warning costs more than an extra message.
 */
public final class SinkFilter implements Predicate<OutboundEvent> {

    private final Set<String> transitions;
    private final Set<String> eventTypes;
    private final boolean ownOnly;
    private final VmIdentity identity;

    public SinkFilter(Set<String> transitions, Set<String> eventTypes, boolean ownOnly, VmIdentity identity) {
        this.transitions = lower(transitions);
        this.eventTypes = lower(eventTypes);
        this.ownOnly = ownOnly;
        this.identity = identity;
    }

    public static SinkFilter all() {
        return new SinkFilter(Set.of(), Set.of(), false, null);
    }

    @Override
    public boolean test(OutboundEvent event) {
        if (!transitions.isEmpty() && !transitions.contains(event.transition().toLowerCase(Locale.ROOT))) {
            return false;
        }
        String type = event.eventType();
        if (!eventTypes.isEmpty() && (type == null || !eventTypes.contains(type.toLowerCase(Locale.ROOT)))) {
            return false;
        }
        if (ownOnly && identity != null && identity.vm() != null) {
            String name = identity.vm().name();
            return event.resources().stream().anyMatch(name::equalsIgnoreCase);
        }
        return true;
    }

    @Override
    public String toString() {
        return "transitions " + (transitions.isEmpty() ? "all" : transitions)
                + ", event types " + (eventTypes.isEmpty() ? "all" : eventTypes)
                + ", resources " + (ownOnly ? "own" : "all");
    }

    private static Set<String> lower(Set<String> values) {
        return values.stream().map(v -> v.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
