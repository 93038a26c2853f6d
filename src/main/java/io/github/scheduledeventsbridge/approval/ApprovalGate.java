package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The remote API's door (docs/approvals.md, "The API"), in the order that keeps IMDS safe: size, signature and
 * timestamp, replay. What passes is a {@link VerifiedApproval}, checked against the document like any other
 * ({@link Approvals}); what does not is refused here, audited and counted.
 */
public final class ApprovalGate {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalGate.class);
    /** The largest body accepted; the approval server refuses a larger one while it arrives. */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    public static final Duration WINDOW = Duration.ofSeconds(300);
    /** The 409's reason when every EventId asked for was approved by this agent before (docs/approvals.md). */
    public static final String ALREADY_APPROVED = Approvals.ALREADY_APPROVED;

    private final WebhookSigner signer;
    private final Clock clock;
    private final ReplayCache replays;
    private final TransitionJournal journal;
    private final ApprovalAudit audit;
    private final ApprovalMetrics metrics;

    public ApprovalGate(WebhookSigner signer, Clock clock, ReplayCache replays, TransitionJournal journal,
                        ApprovalAudit audit, ApprovalMetrics metrics) {
        if (!signer.hasSecret()) {
            throw new IllegalArgumentException("the approval API needs bridge.approval.secret");
        }
        this.signer = signer;
        this.clock = clock;
        this.replays = replays;
        this.journal = journal;
        this.audit = audit;
        this.metrics = metrics;
    }

    /** Route step of POST /api/v1/approvals: the request, authenticated and used once, or ApprovalRefused. */
    public VerifiedApproval verify(@Body SignedApproval request) {
        byte[] body = request.body() == null ? new byte[0] : request.body();
        if (body.length > MAX_BODY_BYTES) {
            throw new ApprovalRefused(413, "body over 64 KiB");
        }
        Signed signed = authenticate(request.timestamp(), request.signature(), body);
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
        return new VerifiedApproval(body, new ApprovalOrigin.Client(request.client()));
    }

    /** Route step of GET /api/v1/events: signed like a POST with an empty body; no replay check (read-only). */
    public ApprovalReply events(@Body SignedApproval request) {
        authenticate(request.timestamp(), request.signature(), new byte[0]);
        return new ApprovalReply(200, ImdsDocumentParser.toJson(journal.lastDocument()).toString());
    }

    /** Route step: the answer to an approval that passed the door. */
    public ApprovalReply answer(@Body ApprovalOutcome outcome) {
        return ApprovalReply.of(outcome);
    }

    /** Route step of the error handler: refused at the door; audited (rate-limited), counted, answered. */
    public ApprovalReply refused(@Body SignedApproval request,
                                 @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) ApprovalRefused refusal) {
        audit.refused(request.client(), refusal.status(), refusal.getMessage(), null);
        metrics.count(Integer.toString(refusal.status()));
        return ApprovalReply.error(refusal.status(), refusal.getMessage());
    }

    /** "already approved by this agent: …" when every event the (authenticated) body names was approved here. */
    private Optional<String> alreadyApproved(byte[] body) {
        List<String> ids;
        try {
            ids = ApprovalBodies.eventIds(body);
        } catch (ApprovalRefused notAnApproval) {
            return Optional.empty();
        }
        Set<String> approvedHere = journal.approvedEvents();
        ImdsDocument current = journal.lastDocument();
        List<String> approved = ids.stream().flatMap(id -> current.find(id).stream())
                .filter(event -> approvedHere.contains(event.key())).map(ScheduledEvent::eventId).toList();
        return approved.size() == ids.size() ? Optional.of(ALREADY_APPROVED + ": " + String.join(", ", approved)) : Optional.empty();
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
}
