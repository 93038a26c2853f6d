package io.github.scheduledeventsbridge.imds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Who this VM is, from IMDS instance metadata ({@code compute}). The IMDS name is what appears in an
 * event's Resources; on scale sets it differs from the host name, so the host name is never used.
 * Until IMDS has answered, the identity is unknown and the agent says so rather than guessing.
 */
public final class VmIdentity {

    public record Vm(String name, String vmId, String resourceId, String location) {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration RETRY_EVERY = Duration.ofSeconds(30);

    private final Clock clock;
    private volatile Vm vm;
    private volatile Instant lastAttempt = Instant.MIN;
    private final java.util.concurrent.atomic.AtomicBoolean warned = new java.util.concurrent.atomic.AtomicBoolean();

    public VmIdentity(Clock clock) {
        this.clock = clock;
    }

    public Vm vm() {
        return vm;
    }

    public boolean isKnown() {
        return vm != null;
    }

    /**
     * Decisions about "this VM" (leader-only approval, actions, the drain signal) cannot be made while the name
     * is unknown: says so once, with what the agent does instead. Readiness and bridge.vm.identity.known show it.
     */
    public void warnUnknown(String consequence) {
        if (vm == null && warned.compareAndSet(false, true)) {
            org.slf4j.LoggerFactory.getLogger(VmIdentity.class).warn("This VM's IMDS name is not known yet "
                    + "(instance metadata has not answered): {} (said once; retried every 30 s)", consequence);
        }
    }

    /** True when the identity is still unknown and the last attempt is old enough to try again. */
    public boolean shouldFetch() {
        return vm == null && !clock.instant().isBefore(lastAttempt.plus(RETRY_EVERY));
    }

    public void attempted() {
        lastAttempt = clock.instant();
    }

    /** Accepts the body of {@code /metadata/instance/compute} or of {@code /metadata/instance}. */
    public Vm update(String body) throws IOException {
        JsonNode root = MAPPER.readTree(body == null ? "" : body);
        JsonNode compute = root != null && root.has("compute") ? root.get("compute") : root;
        if (compute == null || !compute.isObject() || !compute.hasNonNull("name")
                || compute.get("name").asText().isBlank()) {
            throw new InvalidDocumentException("instance metadata has no compute.name");
        }
        vm = new Vm(compute.get("name").asText(), text(compute, "vmId"), text(compute, "resourceId"),
                text(compute, "location"));
        return vm;
    }

    /** Sets the identity directly (tests, and configurations that pin it). */
    public void set(Vm vm) {
        this.vm = vm;
    }

    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }
}
