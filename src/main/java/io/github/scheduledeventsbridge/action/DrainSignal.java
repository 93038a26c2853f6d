package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.imds.NotBefore;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * docs/actions-and-drain.md, "Drain signal": {@code GET /} answers 200 {@code {"status":"serving"}}, or 503 {@code {"status":"draining",
 * "events":[…]}} while an event affecting this VM is Started, approved, or Scheduled with NotBefore less than
 * the lead time away, so that a load balancer's health probe takes the VM out before the platform does. Its
 * own small listener ({@link DrainPort}: one thread, limits on connections, time and size), no request bodies,
 * nothing but {@code GET /}, no secret served.
 */
public final class DrainSignal implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DrainSignal.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final TransitionJournal journal;
    private final VmIdentity identity;
    private final Duration leadTime;
    private final Clock clock;
    /** Events approved (by anyone) while still listed; forgotten when IMDS no longer lists them. */
    private final Set<String> approved = ConcurrentHashMap.newKeySet();
    private DrainPort listener;
    private volatile boolean draining;

    public DrainSignal(TransitionJournal journal, VmIdentity identity, Duration leadTime, Clock clock) {
        this.journal = journal;
        this.identity = identity;
        this.leadTime = leadTime;
        this.clock = clock;
    }

    /** Route step (dispatch): notes approvals. */
    public void onTransitions(List<OutboundEvent> transitions) {
        if (transitions != null) {
            transitions.stream().filter(t -> t.transition().equals("Approved")
                            && !t.data().path("approval").path("dryRun").asBoolean(false))
                    .forEach(t -> approved.add(t.eventId().toUpperCase(Locale.ROOT)));
        }
    }

    /** The events that make this VM drain now, empty when it serves. */
    public List<ScheduledEvent> drainingFor() {
        List<ScheduledEvent> events = journal.lastDocument().events();
        Set<String> listed = events.stream().map(ScheduledEvent::key).collect(Collectors.toSet());
        approved.retainAll(listed);
        Instant horizon = clock.instant().plus(leadTime);
        VmIdentity.Vm vm = identity.vm();
        if (vm == null && !events.isEmpty()) {
            identity.warnUnknown("the drain signal counts every listed event as affecting this VM");
        }
        return events.stream()
                .filter(e -> vm == null || e.names(vm.name()))
                .filter(e -> e.isStarted() || approved.contains(e.key())
                        || (e.isScheduled() && (e.notBefore() == null || e.notBefore().isBefore(horizon))))
                .toList();
    }

    public void start(String host, int port, int maxConnections, Duration requestTimeout) {
        try {
            listener = new DrainPort(host, port, maxConnections, requestTimeout, this::answer);
        } catch (IOException e) {
            throw new BadConfigurationException("bridge.drain.port", "cannot listen on " + host + ":" + port + " ("
                    + e.getMessage() + ")");
        }
        LOG.info("Drain signal listening on {}:{} (503 from {} ms before an event affecting this VM)", host,
                listener.port(), leadTime.toMillis());
    }

    public int port() {
        return listener.port();
    }

    private DrainHttp.Answer answer(DrainHttp.Request request) {
        if (request.hasBody()) {
            return DrainHttp.error(413, "no request body accepted");
        }
        if (!request.path().equals("/")) {
            return DrainHttp.error(404, "only / is served");
        }
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return new DrainHttp.Answer(405, DrainHttp.error(405, "only GET").json(), "GET, HEAD");
        }
        List<ScheduledEvent> events = drainingFor();
        ObjectNode body = MAPPER.createObjectNode().put("status", events.isEmpty() ? "serving" : "draining");
        if (!events.isEmpty()) {
            ArrayNode list = body.putArray("events");
            for (ScheduledEvent e : events) {
                list.addObject().put("eventId", e.eventId()).put("eventType", e.eventType())
                        .put("eventStatus", e.eventStatus()).put("notBefore", NotBefore.toIso(e.notBefore()))
                        .put("approved", approved.contains(e.key()));
            }
        }
        boolean now = !events.isEmpty();
        if (now != draining) {
            draining = now;
            LOG.info("Drain signal: {}", now ? "draining for " + events.stream().map(ScheduledEvent::eventId).toList()
                    : "serving");
        }
        try {
            return new DrainHttp.Answer(now ? 503 : 200, MAPPER.writeValueAsBytes(body), null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
    }
}
