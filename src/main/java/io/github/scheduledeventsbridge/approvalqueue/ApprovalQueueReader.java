package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.approval.ApprovalOrigin;
import io.github.scheduledeventsbridge.approval.ApprovalOutcome;
import io.github.scheduledeventsbridge.approval.VerifiedApproval;
import io.github.scheduledeventsbridge.identity.ManagedIdentityTokens;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The steps of routes/approval-queue.yaml: receive a batch, check each message (envelope, signature, insertion
 * window, replay), hand a verified one to the approval path ({@code direct:approve}), then settle it: a final outcome
 * is recorded and the message deleted; a transient one leaves it on the queue to come back after its visibility
 * timeout, until {@code max-dequeue} deliveries send it to the dead letters.
 */
public final class ApprovalQueueReader {

    /** The exchange property holding the message being decided. */
    public static final String MESSAGE = "approvalQueueMessage";
    static final int BATCH = 16;
    static final Duration SUMMARY_EVERY = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(ApprovalQueueReader.class);
    private static final Duration SIGNATURE_LIFE = SignedEnvelope.WINDOW.multipliedBy(2);

    private final QueueSettings settings;
    private final Function<URI, StorageQueue> queues;
    private final SignedEnvelope envelopes;
    private final QueueOutcomes outcomes;
    private final QueueDeadLetters deadLetters;
    private final VmIdentity identity;
    private final PollBackoff imds;
    private final ManagedIdentityTokens tokens;
    private final Clock clock;
    private final QueueBackoff backoff;
    private final Duration visibility;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    /** The valid signature of each message on its way through the approval path (at most a batch). */
    private final Map<String, String> signatures = new ConcurrentHashMap<>();
    private final Supplier<MeterRegistry> registry;
    private MeterRegistry meters;
    private StorageQueue queue;
    private String lastFailure;
    private boolean saidWaitingForName;
    private boolean saidWaitingForImds;
    private String saidBadName;
    private final Map<SignedEnvelope.Refusal, Long> refusedSinceSummary = new EnumMap<>(SignedEnvelope.Refusal.class);
    private Instant nextSummary;

    public ApprovalQueueReader(QueueSettings settings, Function<URI, StorageQueue> queues, SignedEnvelope envelopes,
                               QueueOutcomes outcomes, QueueDeadLetters deadLetters, VmIdentity identity,
                               PollBackoff imds, ManagedIdentityTokens tokens, Clock clock,
                               Supplier<MeterRegistry> registry) {
        this.settings = settings;
        this.queues = queues;
        this.envelopes = envelopes;
        this.outcomes = outcomes;
        this.deadLetters = deadLetters;
        this.identity = identity;
        this.imds = imds;
        this.tokens = tokens;
        this.clock = clock;
        this.registry = registry;
        this.backoff = new QueueBackoff(clock, settings.pollInterval());
        this.visibility = visibility(settings.pollInterval());
        this.nextSummary = clock.instant().plus(SUMMARY_EVERY);
    }

    /** How long a received message stays invisible: a transient failure is tried again after it. */
    static Duration visibility(Duration pollInterval) {
        Duration six = pollInterval.multipliedBy(6);
        return six.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2)
                : six.compareTo(Duration.ofMinutes(5)) > 0 ? Duration.ofMinutes(5) : six;
    }

    /** Route step: the next batch, or none (backing off, this VM's name or IMDS not known yet, the queue unreadable). */
    public synchronized List<StorageQueue.Message> receive() {
        summarize(false);
        if (outcomes.unreadable() != null || !backoff.due()) {
            return List.of();
        }
        if (!imds.hasAnsweredOnce()) {
            if (!saidWaitingForImds) {
                LOG.info("Approval queue: nothing is received until IMDS has answered once in this run (approvals are "
                        + "checked against its current document)");
                saidWaitingForImds = true;
            }
            return List.of();
        }
        StorageQueue current = queue();
        if (current == null) {
            return List.of();
        }
        try {
            List<StorageQueue.Message> messages = current.receive(BATCH, visibility);
            if (lastFailure != null) {
                LOG.info("Approval queue {} answers again after {} failed attempts", current.url(), backoff.failures());
                lastFailure = null;
            }
            backoff.succeeded();
            count("received", messages.size());
            return messages;
        } catch (QueueFailure failure) {
            queueFailed(failure);
            return List.of();
        }
    }

    /** The queue for this VM's name; null while the name is unknown or makes no valid queue name (said once). */
    private StorageQueue queue() {
        if (queue != null) {
            return queue;
        }
        VmIdentity.Vm vm = identity.vm();
        if (settings.namedByVm() && vm == null) {
            if (!saidWaitingForName) {
                LOG.warn("Approval queue: {} names this VM, whose name is not known yet: nothing is received until "
                        + "IMDS instance metadata answers", settings.url());
                saidWaitingForName = true;
            }
            return null;
        }
        try {
            queue = queues.apply(settings.queueUrl(vm == null ? null : vm.name()));
            LOG.info("Approval queue: receiving from {}", queue.url());
            return queue;
        } catch (RuntimeException e) {
            if (!e.getMessage().equals(saidBadName)) {
                LOG.error("Approval queue: nothing is received: {}", e.getMessage());
                saidBadName = e.getMessage();
            }
            return null;
        }
    }

    /**
     * Route step, per message: its checks. A verified approval goes on to the approval path; anything else is
     * decided here (refused for good, or decided before: deleted) and the route goes no further (null).
     */
    public VerifiedApproval check(@Body StorageQueue.Message message) {
        var before = outcomes.decided(message.id());
        if (before.isPresent()) {
            // Decided earlier, its delete failed or was lost: deleted now, never decided twice.
            delete(message, "decided before (" + before.get().outcome() + ")");
            return null;
        }
        SignedEnvelope.Verified verified;
        try {
            verified = envelopes.verify(message.text(), message.insertionTime());
            var other = outcomes.signatureDecidedUnder(verified.signature(), message.id());
            if (other.isPresent()) {
                throw new SignedEnvelope.Refused(SignedEnvelope.Refusal.REPLAY, "the same signed body was decided as message "
                        + other.get());
            }
        } catch (SignedEnvelope.Refused refused) {
            refuse(message, refused, null);
            return null;
        }
        signatures.put(message.id(), verified.signature());
        return new VerifiedApproval(verified.body(), new ApprovalOrigin.Queue(queue.url().toString(), message.id()));
    }

    private void refuse(StorageQueue.Message message, SignedEnvelope.Refused refused, String signature) {
        synchronized (this) {
            refusedSinceSummary.merge(refused.kind(), 1L, Long::sum);
        }
        count(refused.kind().name().toLowerCase().replace('_', '-'), 1);
        settle(message, "refused: " + refused.getMessage(), signature);
    }

    /** Route step after direct:approve: a final outcome is recorded and the message deleted; a transient one waits. */
    public void decided(@ExchangeProperty(MESSAGE) StorageQueue.Message message, @Body ApprovalOutcome outcome) {
        String signature = signatures.remove(message.id());
        if (outcome instanceof ApprovalOutcome.Failed failed) {
            transientFailure(message, failed.reason() + (failed.cause() == null || failed.cause().equals(failed.reason())
                    ? "" : " (" + failed.cause() + ")"));
        } else if (outcome instanceof ApprovalOutcome.Approved approved) {
            settle(message, "approved " + approved.approved(), signature);
        } else if (outcome instanceof ApprovalOutcome.Refused refused) {
            settle(message, "refused " + refused.status() + ": " + refused.reason(), signature);
        }
    }

    /** Route step when the approval path failed unexpectedly: as a transient failure. */
    public void failed(@ExchangeProperty(MESSAGE) StorageQueue.Message message,
                       @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Exception failure) {
        signatures.remove(message.id());
        transientFailure(message, failure == null ? "failed" : failure.getClass().getSimpleName() + ": " + failure.getMessage());
    }

    private void transientFailure(StorageQueue.Message message, String reason) {
        count("failed", 1);
        if (message.dequeueCount() < settings.maxDequeue()) {
            LOG.warn("Approval queue message {}: not decided now ({}); it comes back in {} s (delivery {} of {})",
                    message.id(), reason, visibility.toSeconds(), message.dequeueCount(), settings.maxDequeue());
            return;
        }
        try {
            deadLetters.keep(message, "delivered " + message.dequeueCount() + " times without a final outcome; last: " + reason);
        } catch (IOException e) {
            LOG.error("Approval queue message {}: cannot keep it in {} ({}): left on the queue", message.id(),
                    deadLetters.directory(), e.getMessage());
            return;
        }
        count("dead-letter", 1);
        LOG.warn("Approval queue message {}: delivered {} times without a final outcome (last: {}): deleted, kept in {}",
                message.id(), message.dequeueCount(), reason, deadLetters.directory());
        delete(message, "dead-lettered");
    }

    /** A final outcome: on disk first (a crash after it cannot decide the message again), then deleted. */
    private void settle(StorageQueue.Message message, String outcome, String signature) {
        Instant keepUntil = later(message.expirationTime(), clock.instant().plus(SIGNATURE_LIFE));
        try {
            outcomes.record(message.id(), outcome, signature, keepUntil);
        } catch (IOException e) {
            LOG.error("Approval queue message {}: its outcome ({}) cannot be recorded ({}): left on the queue",
                    message.id(), outcome, e.getMessage());
            return;
        }
        delete(message, outcome);
    }

    private void delete(StorageQueue.Message message, String why) {
        try {
            if (!queue.delete(message)) {
                LOG.debug("Approval queue message {} ({}): gone or received again; deleted when it comes back", message.id(), why);
            }
        } catch (QueueFailure failure) {
            LOG.warn("Approval queue message {} ({}): not deleted ({}); deleted when it comes back", message.id(), why,
                    failure.getMessage());
        }
    }

    private void queueFailed(QueueFailure failure) {
        if (tokens != null && (failure.status() == 401 || failure.status() == 403)) {
            tokens.forget(); // a refused token: the next attempt asks IMDS for a new one
        }
        Duration wait = backoff.failed(failure.retryAfter());
        count("receive-failed", 1);
        if (!failure.getMessage().equals(lastFailure)) {
            LOG.warn("{}; trying again in {} s (backing off up to {} min; the rest of the agent runs on)",
                    failure.getMessage(), wait.toSeconds(), QueueBackoff.CEILING.toMinutes());
            lastFailure = failure.getMessage();
        }
    }

    /** Messages refused before the approval path, summed up once a minute rather than a line each. */
    public synchronized void summarize(boolean now) {
        if (!now && clock.instant().isBefore(nextSummary)) {
            return;
        }
        nextSummary = clock.instant().plus(SUMMARY_EVERY);
        if (!refusedSinceSummary.isEmpty()) {
            LOG.warn("Approval queue: {} messages refused and deleted in the last minute, never sent to IMDS: {}",
                    refusedSinceSummary.values().stream().mapToLong(Long::longValue).sum(), refusedSinceSummary);
            refusedSinceSummary.clear();
        }
    }

    private void count(String outcome, long n) {
        if (meters == null) {
            meters = registry.get();
        }
        if (meters == null || n == 0) {
            return;
        }
        counters.computeIfAbsent(outcome, o -> Counter.builder("bridge.approval.queue.messages")
                .description("Approval queue messages by what became of them").tag("outcome", o).register(meters))
                .increment(n);
    }

    private static Instant later(Instant a, Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }
}
