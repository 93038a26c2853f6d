package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.http.HttpPort;
import io.github.scheduledeventsbridge.http.PortLimits;
import io.github.scheduledeventsbridge.imds.NotBefore;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * docs/actions-and-drain.md, "Drain signal": {@code GET /} answers 200 {@code {"status":"serving"}}, or 503 {@code {"status":"draining",
 * "events":[…]}} while an event affecting this VM is Started, approved, or Scheduled with NotBefore less than
 * the lead time away, so that a load balancer's health probe takes the VM out before the platform does. Its
 * own port on the agent's one HTTP stack ({@link HttpPort}): a probe that sent its request is read before more
 * connections are accepted and never closed to make room; no request bodies, nothing but {@code GET /}, every
 * answer JSON and closing the connection, no secret served.
 * <p>
 * Right from the start: the events are the journal's (the state dir's last document), approvals are the
 * journal's (kept while IMDS lists the event, so a restart does not forget them), and "this VM" is the last
 * known identity until IMDS instance metadata answers. With no identity at all (a first start whose instance
 * metadata does not answer), only events naming this machine's host name drain it: a VM that cannot tell its
 * events from its neighbours' is not taken out for theirs, since every VM of the set would be taken out at once.
 */
public final class DrainSignal {

    private static final Logger LOG = LoggerFactory.getLogger(DrainSignal.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private final TransitionJournal journal;
    private final VmIdentity identity;
    private final Duration leadTime;
    private final Clock clock;
    private HttpPort listener;
    private volatile boolean draining;

    public DrainSignal(TransitionJournal journal, VmIdentity identity, Duration leadTime, Clock clock) {
        this.journal = journal;
        this.identity = identity;
        this.leadTime = leadTime;
        this.clock = clock;
    }

    /** The events that make this VM drain now, empty when it serves. */
    public List<ScheduledEvent> drainingFor() {
        List<ScheduledEvent> events = journal.lastDocument().events();
        Set<String> approved = journal.approvedEvents();
        Instant horizon = clock.instant().plus(leadTime);
        VmIdentity.Vm vm = identity.vm();
        String thisVm = vm != null ? vm.name() : identity.hostName();
        if (vm == null && !events.isEmpty()) {
            identity.warnUnknown("the drain signal drains only for events naming this host ("
                    + (thisVm == null ? "unknown" : thisVm) + "); other events are not taken as this VM's");
        }
        return events.stream()
                .filter(e -> e.names(thisVm))
                .filter(e -> e.isStarted() || approved.contains(e.key())
                        || (e.isScheduled() && (e.notBefore() == null || e.notBefore().isBefore(horizon))))
                .toList();
    }

    /** Called by StartOrder once the drain port is open: bridge.drain.draining (0 or 1). */
    public void registerMeters(CamelContext context) {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        if (listener != null && registry != null) {
            Gauge.builder("bridge.drain.draining", this, d -> d.drainingFor().isEmpty() ? 0 : 1)
                    .description("1 while the drain signal answers 503 (draining), 0 while it answers 200 (serving)")
                    .register(registry);
        }
    }

    /** The drain port, started: a Camel service (StartOrder), stopped after the routes. */
    public HttpPort listen(ActionSettings settings) {
        listener = new HttpPort("drain", settings.drainHost(), settings.drainPort(),
                PortLimits.of(settings.drainMaxConnections(), 0, settings.drainRequestTimeout()), 2, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                answer(request, response, callback);
                return true;
            }
        });
        try {
            listener.start();
        } catch (RuntimeException e) {
            throw new BadConfigurationException("bridge.drain.port", "cannot listen on " + settings.drainHost() + ":"
                    + settings.drainPort() + " (" + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()) + ")");
        }
        LOG.info("Drain signal listening on {}:{} (503 from {} ms before an event affecting this VM)", settings.drainHost(),
                listener.port(), leadTime.toMillis());
        return listener;
    }

    public int port() {
        return listener.port();
    }

    private void answer(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        try {
            if (request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING)) {
                // A length-announced body never gets here (the port answers 413); a chunked one is not read.
                HttpPort.json(response, callback, 413, HttpPort.errorJson("no request body accepted"), true);
            } else if (!request.getHttpURI().getPath().equals("/")) {
                HttpPort.json(response, callback, 404, HttpPort.errorJson("only / is served"), true);
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
                HttpPort.json(response, callback, 405, HttpPort.errorJson("only GET"), true);
            } else {
                List<ScheduledEvent> events = drainingFor();
                HttpPort.json(response, callback, events.isEmpty() ? 200 : 503, status(events), true);
            }
        } catch (RuntimeException e) {
            // The listener outlives a failed answer: the next probe may be answered.
            LOG.warn("The drain signal could not answer: {}", e.toString());
            HttpPort.json(response, callback, 500, HttpPort.errorJson("no answer"), true);
        }
    }

    private String status(List<ScheduledEvent> events) {
        Set<String> approved = journal.approvedEvents();
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
        return body.toString();
    }
}
