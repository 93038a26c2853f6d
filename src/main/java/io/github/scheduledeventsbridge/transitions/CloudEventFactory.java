package io.github.scheduledeventsbridge.transitions;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.NotBefore;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** Renders a transition as a CloudEvents 1.0 structured JSON message (docs/messages.md). */
public final class CloudEventFactory {

    /** CloudEvent {@code type} = this prefix + the transition, e.g. {@code ...transition.Scheduled}. */
    public static final String TYPE_PREFIX = "io.github.scheduledeventsbridge.transition.";
    /**
     * A dry-run approval ({@code bridge.approval.auto.dry-run}) is not an approval: receivers that route on
     * {@code type} (…transition.Approved, or the …transition. prefix) must not take it for one.
     */
    public static final String DRY_RUN_TYPE_PREFIX = "io.github.scheduledeventsbridge.dryrun.";

    static String type(DetectedTransition transition) {
        boolean dryRun = transition.approval() != null && transition.approval().dryRun();
        return (dryRun ? DRY_RUN_TYPE_PREFIX : TYPE_PREFIX) + transition.type().name();
    }
    static final String UNKNOWN_SOURCE = "urn:scheduled-events-bridge:vm:unknown";

    private final Clock clock;
    private final VmIdentity identity;

    public CloudEventFactory(Clock clock, VmIdentity identity) {
        this.clock = clock;
        this.identity = identity;
    }

    public ObjectNode create(DetectedTransition transition) {
        VmIdentity.Vm vm = identity.vm();
        ScheduledEvent event = transition.event();
        String source = source(vm);

        ObjectNode ce = JsonNodeFactory.instance.objectNode();
        ce.put("specversion", "1.0");
        ce.put("id", id(source, transition));
        ce.put("source", source);
        ce.put("type", type(transition));
        ce.put("subject", event.eventId());
        ce.put("time", DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS)));
        ce.put("datacontenttype", "application/json");

        ObjectNode data = ce.putObject("data");
        data.put("transition", transition.type().name());
        data.put("eventId", event.eventId());
        data.put("eventType", event.eventType());
        data.put("eventStatus", transition.currentStatus());
        data.put("previousStatus", transition.previousStatus());
        data.put("resourceType", event.resourceType());
        ArrayNode resources = data.putArray("resources");
        event.resources().forEach(resources::add);
        data.put("notBefore", NotBefore.toIso(event.notBefore()));
        data.put("description", event.description());
        data.put("eventSource", event.eventSource());
        if (event.durationInSeconds() == null) {
            data.putNull("durationInSeconds");
        } else {
            data.put("durationInSeconds", event.durationInSeconds());
        }
        data.put("documentIncarnation", transition.documentIncarnation());
        if (transition.startObserved() != null) {
            data.put("startObserved", transition.startObserved());
        }
        if (transition.approval() != null) {
            ObjectNode approval = data.putObject("approval");
            approval.put("by", transition.approval().by());
            approval.put("rule", transition.approval().rule());
            approval.put("dryRun", transition.approval().dryRun());
        }
        if (vm != null) {
            ObjectNode vmNode = data.putObject("vm");
            vmNode.put("name", vm.name());
            vmNode.put("vmId", vm.vmId());
            vmNode.put("resourceId", vm.resourceId());
            vmNode.put("location", vm.location());
        }
        return ce;
    }

    private static String source(VmIdentity.Vm vm) {
        if (vm == null) {
            return UNKNOWN_SOURCE;
        }
        if (vm.resourceId() != null && !vm.resourceId().isBlank()) {
            return vm.resourceId();
        }
        return "urn:scheduled-events-bridge:vm:" + vm.name();
    }

    /**
     * Derived from what the transition is, not when it was seen: if the agent dies after recording a
     * transition and sees it again, the copy carries the same id, so receivers can deduplicate.
     */
    static String id(String source, DetectedTransition t) {
        // A dry run must not share its id with a real approval of the same event.
        String kind = t.approval() != null && t.approval().dryRun() ? t.type().name() + "-dry-run" : t.type().name();
        String name = source + "|" + t.event().key() + "|" + kind + "|" + t.documentIncarnation();
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
