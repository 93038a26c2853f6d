package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * {@code bridge.filter.resources}: {@code all}, or {@code own} = only events whose Resources name this VM
 * (IMDS compute.name). While the name is not yet known, {@code own} lets everything through: a missed
 * reboot warning costs more than a few extra messages.
 */
public final class ResourceFilter {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceFilter.class);

    public enum Mode { ALL, OWN }

    private final Mode mode;
    private final VmIdentity identity;

    public ResourceFilter(Mode mode, VmIdentity identity) {
        this.mode = mode;
        this.identity = identity;
    }

    public static Mode mode(String value) {
        return Mode.valueOf(value.trim().toUpperCase(Locale.ROOT));
    }

    public boolean accepts(DetectedTransition transition) {
        if (mode == Mode.ALL) {
            return true;
        }
        VmIdentity.Vm vm = identity.vm();
        if (vm == null) {
            LOG.warn("bridge.filter.resources=own but this VM's IMDS name is not known yet: forwarding {} {}",
                    transition.type(), transition.event().eventId());
            return true;
        }
        return transition.event().names(vm.name());
    }
}
