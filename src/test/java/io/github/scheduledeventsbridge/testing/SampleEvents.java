package io.github.scheduledeventsbridge.testing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.github.scheduledeventsbridge.transitions.TransitionType;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** CloudEvents made by the real factory, for tests of what consumes them. */
public final class SampleEvents {

    /** The moment the agent "saw" every sample change: 2022-04-11 10:15 UTC, the day of the seed's NotBefore. */
    public static final Instant SEEN = Instant.parse("2022-04-11T10:15:00Z");

    private SampleEvents() {
    }

    public static ObjectNode cloudEvent(TransitionType type, String eventType, String notBefore, String vmName,
                                        String... resources) {
        VmIdentity identity = new VmIdentity(Clock.fixed(SEEN, ZoneOffset.UTC));
        if (vmName != null) {
            identity.set(new VmIdentity.Vm(vmName, "vm-id", "/subscriptions/0/resourceGroups/rg/providers/"
                    + "Microsoft.Compute/virtualMachines/" + vmName, "norwayeast"));
        }
        boolean gone = type == TransitionType.Completed || type == TransitionType.Cancelled;
        String status = type == TransitionType.Started || type == TransitionType.Completed ? "Started" : "Scheduled";
        ScheduledEvent event = new ScheduledEvent("C7061BAC-AFDC-4513-B24B-AA5F13A16123", eventType, "VirtualMachine",
                List.of(resources), status, status.equals("Started") ? "" : notBefore,
                "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
                "Platform", 5);
        String previous = switch (type) {
            case Scheduled -> null;
            case Completed -> "Started";
            default -> "Scheduled";
        };
        DetectedTransition transition = new DetectedTransition(type, event, previous, gone ? null : status, 2);
        return new CloudEventFactory(Clock.fixed(SEEN, ZoneOffset.UTC), identity).create(transition);
    }

    public static OutboundEvent outbound(long seq, TransitionType type, String eventType, String... resources) {
        return new OutboundEvent(seq, cloudEvent(type, eventType, "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", resources));
    }
}
