package io.github.scheduledeventsbridge.approval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * docs/approvals.md ("The API"), in the order that keeps IMDS safe: size, signature and timestamp, replay, body shape,
 * then the event against the current document. Only a request that passes all of them is forwarded.
 */
public final class ApprovalGate {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalGate.class);
    /** The largest body accepted; the approval server refuses a larger one while it arrives. */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    public static final Duration WINDOW = Duration.ofSeconds(300);
    static final String EVENTS_PROPERTY = "approvalEvents";
    static final String IDS_PROPERTY = "approvalEventIds";
    static final String ALREADY_PROPERTY = "approvalAlreadyApproved";
    /** The 409's reason when every EventId asked for was approved by this agent before (docs/approvals.md). */
    public static final String ALREADY_APPROVED = "already approved by this agent";
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.STRICT;

    private final WebhookSigner signer;
    private final Clock clock;
    private final ReplayCache replays;
    private final TransitionJournal journal;
    private final ApprovalAudit audit;

    public ApprovalGate(WebhookSigner signer, Clock clock, ReplayCache replays, TransitionJournal journal,
                        ApprovalAudit audit) {
        if (!signer.hasSecret()) {
            throw new IllegalArgumentException("the approval API needs bridge.approval.secret");
        }
        this.signer = signer;
        this.clock = clock;
        this.replays = replays;
        this.journal = journal;
        this.audit = audit;
    }

    /** Route step: refuses (ApprovalRefused) or leaves the IMDS StartRequests body to forward. */
    public void admit(Exchange exchange) {
        byte[] body = body(exchange);
        Signed signed = authenticate(exchange.getMessage().getHeader(WebhookSigner.TIMESTAMP_HEADER, String.class),
                exchange.getMessage().getHeader(WebhookSigner.SIGNATURE_HEADER, String.class), body);
        ReplayCache.Use use;
        try {
            use = replays.use(signed.signature(), signed.timestamp());
        } catch (IOException e) {
            LOG.error("Cannot record a used approval signature in the state directory: {}", e.getMessage());
            throw new ApprovalRefused(503, "the agent cannot record approvals right now");
        }
        if (use == ReplayCache.Use.REPLAY) {
            // The same signed request again (a client's retry after a lost answer): nothing goes to IMDS either way.
            throw new ApprovalRefused(409, alreadyApproved(body).orElse("this signature was already used"));
        }
        if (use == ReplayCache.Use.FULL) {
            throw new ApprovalRefused(503, "too many approvals in the last 10 minutes; try again later");
        }
        List<String> requested = eventIds(body);
        exchange.setProperty(IDS_PROPERTY, requested);
        ImdsDocument current = journal.lastDocument();
        Set<String> approvedHere = journal.approvedEvents();
        List<ScheduledEvent> events = new ArrayList<>();
        List<String> already = new ArrayList<>();
        for (String id : requested) {
            ScheduledEvent event = current.find(id)
                    .orElseThrow(() -> new ApprovalRefused(404, "EventId " + id + " is not in the current document"));
            if (approvedHere.contains(event.key())) {
                already.add(event.eventId()); // a client's retry after a lost answer: not sent to IMDS again
            } else if (!event.isScheduled()) {
                throw new ApprovalRefused(409, "EventId " + id + " is " + event.eventStatus() + ", not Scheduled");
            } else {
                events.add(event);
            }
        }
        if (events.isEmpty()) {
            throw new ApprovalRefused(409, ALREADY_APPROVED + ": " + String.join(", ", already));
        }
        exchange.setProperty(EVENTS_PROPERTY, events);
        exchange.setProperty(ALREADY_PROPERTY, already);
        exchange.getMessage().setBody(startRequests(events));
    }

    /**
     * Route step: IMDS accepted. Records an Approved transition per event (delivered by the next
     * poll's dispatch) and answers 200: the approval happened, so a state that cannot be written now
     * only delays the record (kept in memory, written with the next poll; the answer says so).
     */
    @SuppressWarnings("unchecked")
    public void accepted(Exchange exchange) throws IOException {
        List<ScheduledEvent> events = exchange.getProperty(EVENTS_PROPERTY, List.class);
        long incarnation = journal.lastDocument().incarnation();
        List<DetectedTransition> approved = events.stream().map(e ->
                new DetectedTransition(TransitionType.Approved, e, e.eventStatus(), e.eventStatus(), incarnation,
                        new DetectedTransition.Approval("remote", null, false))).toList();
        boolean recorded = journal.recordApproved(approved);
        ObjectNode answer = MAPPER.createObjectNode();
        ArrayNode ids = answer.putArray("approved");
        events.forEach(e -> ids.add(e.eventId()));
        List<String> already = exchange.getProperty(ALREADY_PROPERTY, List.class);
        if (already != null && !already.isEmpty()) {
            already.forEach(answer.putArray("alreadyApproved")::add);
        }
        answer.put("recorded", recorded);
        if (!recorded) {
            answer.put("note", "IMDS accepted; the state cannot be written now, the Approved transition is "
                    + "recorded and sent with the next poll");
        }
        audit.approved(client(exchange), events.stream().map(ScheduledEvent::eventId).toList());
        respond(exchange, 200, answer);
    }

    /** "already approved by this agent: …" when every event the (authenticated) body names was approved here. */
    private Optional<String> alreadyApproved(byte[] body) {
        List<String> ids;
        try {
            ids = eventIds(body);
        } catch (ApprovalRefused notAnApproval) {
            return Optional.empty();
        }
        Set<String> approvedHere = journal.approvedEvents();
        ImdsDocument current = journal.lastDocument();
        List<String> approved = ids.stream().flatMap(id -> current.find(id).stream())
                .filter(event -> approvedHere.contains(event.key())).map(ScheduledEvent::eventId).toList();
        return approved.size() == ids.size() ? Optional.of(ALREADY_APPROVED + ": " + String.join(", ", approved)) : Optional.empty();
    }

    /** Route step for GET /api/v1/events: signed like a POST with an empty body; no replay check (read-only). */
    public String events(@Header(WebhookSigner.TIMESTAMP_HEADER) String timestamp,
                         @Header(WebhookSigner.SIGNATURE_HEADER) String signature) {
        authenticate(timestamp, signature, new byte[0]);
        return ImdsDocumentParser.toJson(journal.lastDocument()).toString();
    }

    /** Route step of the error handler: the status and a short JSON reason, audited (rate-limited). */
    @SuppressWarnings("unchecked")
    public void refused(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        int status = cause instanceof ApprovalRefused refused ? refused.status() : 502;
        String reason = cause instanceof ApprovalRefused ? cause.getMessage() : "IMDS could not be reached";
        audit.refused(client(exchange), status, reason, exchange.getProperty(IDS_PROPERTY, List.class));
        respond(exchange, status, MAPPER.createObjectNode().put("error", reason));
    }

    private record Signed(String signature, long timestamp) {
    }

    private Signed authenticate(String timestamp, String signature, byte[] body) {
        if (timestamp == null || signature == null) {
            throw new ApprovalRefused(401, "X-Bridge-Timestamp and X-Bridge-Signature are required");
        }
        // Verify before looking at the timestamp's value, so a forger learns nothing from the answer.
        if (!signer.verify(timestamp, body, signature)) {
            throw new ApprovalRefused(401, "signature does not match");
        }
        long seconds;
        try {
            seconds = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            throw new ApprovalRefused(401, "X-Bridge-Timestamp is not Unix seconds");
        }
        long skew = Math.abs(clock.instant().getEpochSecond() - seconds);
        if (skew > WINDOW.toSeconds()) {
            throw new ApprovalRefused(401, "timestamp is more than 300 s from now");
        }
        return new Signed(signature, seconds);
    }

    private static String client(Exchange exchange) {
        return exchange.getProperty(ApprovalAudit.CLIENT_PROPERTY, "?", String.class);
    }

    private static byte[] body(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null) {
            body = new byte[0];
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new ApprovalRefused(413, "body over 64 KiB");
        }
        return body;
    }

    /** {"EventId": "…"} or {"StartRequests": [{"EventId": "…"}, …]}, nothing else. */
    static List<String> eventIds(byte[] body) {
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ApprovalRefused(400, "body is not JSON");
        }
        if (root == null || !root.isObject() || root.size() != 1) {
            throw new ApprovalRefused(400, "body must be {\"EventId\": …} or {\"StartRequests\": [{\"EventId\": …}]}");
        }
        Set<String> ids = new LinkedHashSet<>();
        if (root.has("EventId")) {
            ids.add(eventId(root.get("EventId")));
        } else if (root.has("StartRequests") && root.get("StartRequests").isArray()
                && !root.get("StartRequests").isEmpty() && root.get("StartRequests").size() <= 100) {
            for (JsonNode request : root.get("StartRequests")) {
                if (!request.isObject() || request.size() != 1 || !request.has("EventId")) {
                    throw new ApprovalRefused(400, "each StartRequest must be {\"EventId\": …}");
                }
                ids.add(eventId(request.get("EventId")));
            }
        } else {
            throw new ApprovalRefused(400, "body must be {\"EventId\": …} or {\"StartRequests\": [{\"EventId\": …}]}");
        }
        return List.copyOf(ids);
    }

    private static String eventId(JsonNode node) {
        if (node == null || !node.isTextual() || node.asText().isBlank() || node.asText().length() > 100) {
            throw new ApprovalRefused(400, "EventId must be a non-empty string");
        }
        return node.asText().trim();
    }

    /** The exact body IMDS documents, with the ids as IMDS itself spelled them. */
    public static String startRequests(List<ScheduledEvent> events) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode requests = root.putArray("StartRequests");
        events.forEach(e -> requests.addObject().put("EventId", e.eventId()));
        try {
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void respond(Exchange exchange, int status, JsonNode body) {
        exchange.getMessage().removeHeaders("*");
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
        try {
            exchange.getMessage().setBody(MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
