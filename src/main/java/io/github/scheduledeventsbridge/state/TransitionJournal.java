package io.github.scheduledeventsbridge.state;

import io.github.scheduledeventsbridge.storage.StateWriteException;
import io.github.scheduledeventsbridge.platform.BootTime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.Continuity;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The agent's memory: the last document, the transitions not yet handed to the sinks' spools (the outbox)
 * and the listed events someone approved, kept together in one file replaced atomically. Recording a new document and its
 * transitions is therefore one step: a crash before it changes nothing (the same changes are seen
 * again), a crash after it leaves the outbox, which is spooled again on start.
 */
public final class TransitionJournal {

    private static final Logger LOG = LoggerFactory.getLogger(TransitionJournal.class);

    private final StateFile file;
    private final TransitionDetector detector;
    private final CloudEventFactory factory;
    private final ResourceFilter resourceFilter;
    private final ObservationWatch watch;
    private final StorageHealth health;

    private ImdsDocument document = ImdsDocument.NONE;
    private boolean hasDocument;
    private long nextSeq = 1;
    private List<OutboundEvent> outbox = List.of();
    /** Keys of listed events approved at IMDS (not dry runs): the drain signal drains for them, also after a restart. */
    private Set<String> approved = Set.of();
    /** Approvals IMDS accepted that could not be written yet: recorded with the next poll. */
    private final List<DetectedTransition> unrecordedApprovals = new ArrayList<>();
    private Consumer<List<OutboundEvent>> log = recorded -> {
    };

    public TransitionJournal(Path stateDir, TransitionDetector detector, CloudEventFactory factory,
                             ResourceFilter resourceFilter, Clock clock) {
        this(stateDir, detector, factory, resourceFilter, clock,
                new ObservationWatch(ObservationWatch.maxGap(Duration.ofSeconds(1)), BootTime.system(), clock),
                new StorageHealth());
    }

    public TransitionJournal(Path stateDir, TransitionDetector detector, CloudEventFactory factory,
                             ResourceFilter resourceFilter, Clock clock, ObservationWatch watch, StorageHealth health) {
        this.file = new StateFile(stateDir, health);
        this.detector = detector;
        this.factory = factory;
        this.resourceFilter = resourceFilter;
        this.watch = watch;
        this.health = health;
        load(clock);
        nextSeq = aboveEverySpooledMessage(stateDir.resolve("spool"));
    }

    /**
     * Where each transition goes once it is on disk, whoever recorded it (a poll, an approval, an action's outcome):
     * logged and counted once, neither lost by a stop before the next dispatch nor repeated by one after a restart.
     */
    public synchronized TransitionJournal loggingTo(Consumer<List<OutboundEvent>> log) {
        this.log = log;
        return this;
    }

    /**
     * Records a freshly polled document: its transitions become the outbox, and both are on disk
     * before this returns. Returns the outbox: empty when nothing changed (then nothing is written),
     * unless an earlier dispatch failed half-way, whose leftovers are handed out again.
     */
    public synchronized List<OutboundEvent> record(ImdsDocument current) throws IOException {
        Continuity continuity = watch.now();
        boolean unchanged = hasDocument && current.equals(document);
        if (unchanged && unrecordedApprovals.isEmpty() && !health.isFailing(StorageHealth.STATE)
                && !watch.needsPersisting()) {
            watch.observed(continuity.now(), false);
            return outbox;
        }
        if (hasDocument && current.incarnation() < document.incarnation()) {
            LOG.info("DocumentIncarnation went back from {} to {} (IMDS reset); comparing events by content",
                    document.incarnation(), current.incarnation());
        }
        List<OutboundEvent> recorded = new ArrayList<>(outbox);
        long seq = nextSeq;
        for (DetectedTransition approval : unrecordedApprovals) {
            recorded.add(new OutboundEvent(seq++, factory.create(approval)));
        }
        for (DetectedTransition transition : detector.detect(document, current, continuity)) {
            if (resourceFilter.accepts(transition)) {
                recorded.add(new OutboundEvent(seq++, factory.create(transition)));
            }
        }
        Set<String> listed = current.events().stream().map(ScheduledEvent::key).collect(Collectors.toSet());
        Set<String> stillApproved = new HashSet<>(approvedEvents());
        stillApproved.retainAll(listed);
        save(current, seq, recorded, continuity.now(), stillApproved);
        unrecordedApprovals.clear();
        watch.observed(continuity.now(), true);
        return outbox;
    }

    /** Records transitions that do not come from a poll (approvals). */
    public synchronized List<OutboundEvent> record(List<DetectedTransition> transitions) throws IOException {
        Set<String> nowApproved = new HashSet<>(approved);
        transitions.stream().filter(TransitionJournal::isApproval).forEach(t -> nowApproved.add(t.event().key()));
        return recordCloudEvents(transitions.stream().map(factory::create).toList(), nowApproved);
    }

    /** Records ready-made CloudEvents (action outcomes) into the outbox; the next poll dispatches them. */
    public synchronized List<OutboundEvent> recordCloudEvents(List<ObjectNode> cloudEvents) throws IOException {
        return recordCloudEvents(cloudEvents, approved);
    }

    private List<OutboundEvent> recordCloudEvents(List<ObjectNode> cloudEvents, Set<String> nowApproved)
            throws IOException {
        List<OutboundEvent> recorded = new ArrayList<>(outbox);
        long seq = nextSeq;
        for (ObjectNode cloudEvent : cloudEvents) {
            recorded.add(new OutboundEvent(seq++, cloudEvent));
        }
        save(document, seq, recorded, watch.lastObserved(), nowApproved);
        return outbox;
    }

    /**
     * Keys of the events approved at IMDS (by the approval API, a policy, or after a prepare; not dry runs)
     * that were listed when last recorded, including accepted approvals still waiting to be written.
     */
    public synchronized Set<String> approvedEvents() {
        if (unrecordedApprovals.isEmpty()) {
            return approved;
        }
        Set<String> all = new HashSet<>(approved);
        unrecordedApprovals.stream().filter(TransitionJournal::isApproval).forEach(t -> all.add(t.event().key()));
        return Set.copyOf(all);
    }

    private static boolean isApproval(DetectedTransition t) {
        return t.type() == TransitionType.Approved && (t.approval() == null || !t.approval().dryRun());
    }

    /**
     * Records approvals IMDS has accepted. They happened whatever the disk says: when the state cannot
     * be written now, they are kept in memory and recorded with the next poll's document. Returns
     * whether they are on disk already.
     */
    public synchronized boolean recordApproved(List<DetectedTransition> approvals) throws IOException {
        try {
            record(approvals);
            return true;
        } catch (StateWriteException e) {
            unrecordedApprovals.addAll(approvals);
            LOG.warn("{} accepted approval(s) not recorded yet ({}); recorded with the next poll",
                    approvals.size(), e.getMessage());
            return false;
        }
    }

    /** The whole outbox is safely in every sink's spool: forget it (used at start, single-threaded). */
    public synchronized void outboxSpooled() throws IOException {
        outboxSpooled(outbox);
    }

    /**
     * These transitions are safely in every sink's spool: forget them, and only them, since an approval
     * may have added one since they were handed out.
     */
    public synchronized void outboxSpooled(List<OutboundEvent> spooled) throws IOException {
        Set<Long> done = new HashSet<>();
        spooled.forEach(e -> done.add(e.seq()));
        List<OutboundEvent> remaining = outbox.stream().filter(e -> !done.contains(e.seq())).toList();
        if (remaining.size() != outbox.size()) {
            save(document, nextSeq, remaining, watch.lastObserved(), approved);
        }
    }

    public synchronized List<OutboundEvent> outbox() {
        return outbox;
    }

    public synchronized ImdsDocument lastDocument() {
        return document;
    }

    private void save(ImdsDocument newDocument, long newNextSeq, List<OutboundEvent> newOutbox, Instant observed,
                      Set<String> newApproved) throws IOException {
        StateFile.Contents written = new StateFile.Contents(newDocument, newNextSeq, newOutbox, observed, newApproved);
        file.write(written);
        long firstNew = nextSeq;
        // Memory follows disk only once the disk has it.
        document = newDocument;
        hasDocument = true;
        nextSeq = newNextSeq;
        outbox = written.outbox();
        approved = written.approved();
        log.accept(outbox.stream().filter(transition -> transition.seq() >= firstNew).toList());
    }

    private void load(Clock clock) {
        file.read(clock).ifPresent(loaded -> {
            document = loaded.document();
            hasDocument = true;
            nextSeq = loaded.nextSeq();
            outbox = loaded.outbox();
            approved = loaded.approved();
            watch.restore(loaded.lastObserved());
        });
    }

    /**
     * Sequence numbers are never reused: with the state file lost or corrupt, numbering restarts above
     * every message still waiting in any spool (dead letters included) and above the outbox.
     */
    private long aboveEverySpooledMessage(Path spoolRoot) {
        long highest = outbox.stream().mapToLong(OutboundEvent::seq).max().orElse(0);
        try {
            highest = Math.max(highest, Spool.highestSequence(spoolRoot));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the spool " + spoolRoot + " to number new messages", e);
        }
        if (highest >= nextSeq) {
            LOG.warn("The state's next sequence number {} is not above the spooled messages (highest {}): "
                    + "numbering continues at {}", nextSeq, highest, highest + 1);
            return highest + 1;
        }
        return nextSeq;
    }
}
