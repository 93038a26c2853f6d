package io.github.scheduledeventsbridge.imds;

import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.eventlog.LifeEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.platform.Platform;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who this VM is, from IMDS instance metadata ({@code compute}). The IMDS name is what appears in an
 * event's Resources; on scale sets it differs from the host name, so the host name is never taken for it.
 * What IMDS said is kept in the state dir: a restarted agent uses that last known identity until IMDS answers
 * again (it is asked at once), so the drain signal and the leader rule are right from the first second. With
 * neither, the identity is unknown and the agent says so rather than guessing.
 */
public final class VmIdentity {

    public record Vm(String name, String vmId, String resourceId, String location) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(VmIdentity.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    private static final Duration RETRY_EVERY = Duration.ofSeconds(30);
    /** Consequences said while unknown: a bound, should a caller ever name an event in its consequence. */
    private static final int MAX_SAID = 1000;

    private final Clock clock;
    private final LastKnownIdentity lastKnown;
    private final String hostName;
    private volatile Vm vm;
    /** True once IMDS answered in this run; until then {@link #vm} is the last known identity, if any. */
    private volatile boolean confirmed;
    private volatile Instant lastAttempt = Instant.MIN;
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** While instance metadata fails: how often the failures are summed up in the log. */
    static final Duration SUMMARY_EVERY = Duration.ofMinutes(10);
    private int failures;
    private int failuresSinceSummary;
    private Instant failingSince;
    private Instant nextSummary;

    /** Nothing kept between runs (tests). */
    public VmIdentity(Clock clock) {
        this.clock = clock;
        this.lastKnown = null;
        this.hostName = hostName(Platform.current());
    }

    /** Starts from the identity an earlier run recorded in {@code stateDir}, and records what IMDS says. */
    public VmIdentity(Clock clock, Path stateDir) {
        this(clock, stateDir, Platform.current());
    }

    /** The same, with the host name of {@code platform}. */
    public VmIdentity(Clock clock, Path stateDir, Platform platform) {
        this.clock = clock;
        this.hostName = hostName(platform);
        this.lastKnown = new LastKnownIdentity(stateDir);
        this.vm = lastKnown.load();
        if (vm != null) {
            LOG.info("This VM was {} (vmId {}) in the last run: taken as its identity until IMDS instance metadata "
                    + "answers", vm.name(), vm.vmId());
        }
    }

    /** What IMDS said in this run, else the last known identity, else null. */
    public Vm vm() {
        return vm;
    }

    public boolean isKnown() {
        return vm != null;
    }

    /** What messages carry while instance metadata does not answer: for the log line of a failed lookup. */
    public String meanwhile() {
        return vm != null ? "messages carry the last known identity (" + vm.name() + ") until it answers"
                : "messages carry no vm block until it answers";
    }

    /** {@code imds} (answered in this run), {@code last-known} (recorded by an earlier run) or {@code unknown}. */
    public String source() {
        return confirmed ? "imds" : vm != null ? "last-known" : "unknown";
    }

    /**
     * This machine's host name (its first label, upper case), or null: the only hint of "this VM" when no
     * identity is known at all. A VM's host name defaults to its name; on scale sets it never equals it.
     */
    public String hostName() {
        return hostName;
    }

    /**
     * Decisions about "this VM" (leader-only approval, actions, the drain signal) cannot be made while the name
     * is unknown: says so once per consequence, with what the agent does instead. Readiness and
     * bridge.vm.identity.known show it.
     */
    public void warnUnknown(String consequence) {
        if (vm != null) {
            return;
        }
        if (said.size() >= MAX_SAID) {
            said.clear();
        }
        if (said.add(consequence)) {
            String line = "This VM's IMDS name is not known yet (instance metadata has not answered, and no earlier run "
                    + "recorded it): " + consequence + " (said once; retried every 30 s)";
            LOG.warn(line);
            AgentLifeLog.report(LifeEvent.IDENTITY_UNKNOWN, line);
        }
    }

    /**
     * Route step: instance metadata did not answer. The first failure is said with its consequence; the later ones
     * (one every 30 s) are only counted, and summed up once every {@link #SUMMARY_EVERY} while it lasts; the first
     * answer after failures says how many there were.
     */
    public synchronized void unavailable(@ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Exception failure) {
        String reason = failure == null ? "no answer" : String.valueOf(failure.getMessage());
        Instant now = clock.instant();
        failures++;
        if (failures == 1) {
            failingSince = now;
            nextSummary = now.plus(SUMMARY_EVERY);
            failuresSinceSummary = 0;
            LOG.warn("IMDS instance metadata unavailable ({}); {}. Retried every {} s; said again once every {} min "
                    + "while it lasts", reason, meanwhile(), RETRY_EVERY.toSeconds(), SUMMARY_EVERY.toMinutes());
            return;
        }
        failuresSinceSummary++;
        if (!now.isBefore(nextSummary)) {
            LOG.warn("IMDS instance metadata still unavailable: {} more failed attempts in the last {} min, {} since "
                    + "{} (the last: {})", failuresSinceSummary, SUMMARY_EVERY.toMinutes(), failures, failingSince,
                    reason);
            nextSummary = now.plus(SUMMARY_EVERY);
            failuresSinceSummary = 0;
        }
    }

    /** True when IMDS has not answered in this run and the last attempt is old enough to try again. */
    public boolean shouldFetch() {
        return !confirmed && !clock.instant().isBefore(lastAttempt.plus(RETRY_EVERY));
    }

    public void attempted() {
        lastAttempt = clock.instant();
    }

    /** Accepts the body of {@code /metadata/instance/compute} or of {@code /metadata/instance}. */
    public Vm update(String body) throws IOException {
        Vm answered = parse(body);
        Vm before = vm;
        if (before != null && !confirmed && !before.name().equalsIgnoreCase(answered.name())) {
            LOG.warn("IMDS names this VM {}, the state dir knew it as {} (copied from another VM?): {} from now on",
                    answered.name(), before.name(), answered.name());
        }
        vm = answered;
        confirmed = true;
        said.clear();
        synchronized (this) {
            if (failures > 0) {
                LOG.info("IMDS instance metadata answered after {} failed attempts since {}", failures, failingSince);
                failures = 0;
            }
        }
        if (lastKnown != null && !answered.equals(before)) {
            lastKnown.save(answered, clock.instant());
        }
        return answered;
    }

    /** Sets the identity directly (tests, and configurations that pin it). */
    public void set(Vm vm) {
        this.vm = vm;
        this.confirmed = true;
    }

    static Vm parse(String body) throws IOException {
        JsonNode root = MAPPER.readTree(body == null ? "" : body);
        JsonNode compute = root != null && root.has("compute") ? root.get("compute") : root;
        if (compute == null || !compute.isObject() || !compute.hasNonNull("name")
                || compute.get("name").asText().isBlank()) {
            throw new InvalidDocumentException("instance metadata has no compute.name");
        }
        return new Vm(compute.get("name").asText(), text(compute, "vmId"), text(compute, "resourceId"),
                text(compute, "location"));
    }

    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    /** The platform's host name, its first label in upper case, or null. */
    static String hostName(Platform platform) {
        return platform.hostName().map(name -> name.trim().split("\\.", 2)[0].toUpperCase(Locale.ROOT)).orElse(null);
    }
}
