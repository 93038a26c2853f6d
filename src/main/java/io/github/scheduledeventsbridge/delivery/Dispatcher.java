package io.github.scheduledeventsbridge.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.github.scheduledeventsbridge.storage.StateWriteException;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies each recorded transition into the spool of every sink whose filter accepts it: one file per
 * transition, one spool document per dispatch when a sink is given many, or for a batched sink one file per
 * dispatch (named after its first transition, so the same outbox always lands in the same file).
 */
public final class Dispatcher {

    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Dispatcher.class);

    private final SinkRegistry registry;
    private final Spool spool;

    private final StorageHealth health;
    private final java.util.concurrent.atomic.AtomicBoolean replayed = new java.util.concurrent.atomic.AtomicBoolean();

    public Dispatcher(SinkRegistry registry, Spool spool) {
        this(registry, spool, new StorageHealth());
    }

    public Dispatcher(SinkRegistry registry, Spool spool, StorageHealth health) {
        this.registry = registry;
        this.spool = spool;
        this.health = health;
    }

    /**
     * Writes every message's file, not yet forced to disk: the lanes may send them at once. Until
     * {@link #makeDurable} has returned, the journal's outbox still holds the transitions, so a crash in between
     * only means spooling again (a message already delivered is then delivered twice, with the same id).
     */
    public List<SpoolEntry> spool(List<OutboundEvent> events) {
        return reported(events.isEmpty(), () -> spoolAll(events));
    }

    /** Forces the files {@link #spool} wrote, and their directories: after this the outbox may be cleared. */
    public void makeDurable(List<SpoolEntry> entries) {
        reported(entries.isEmpty(), () -> {
            spool.force(entries);
            return entries;
        });
    }

    private interface SpoolWork {
        List<SpoolEntry> run() throws IOException;
    }

    /** A spool that cannot be written is a StateWriteException, and a storage problem until it works again. */
    private List<SpoolEntry> reported(boolean nothing, SpoolWork work) {
        try {
            List<SpoolEntry> entries = work.run();
            if (!nothing) {
                health.succeeded(StorageHealth.SPOOL);
            }
            return entries;
        } catch (IOException | java.io.UncheckedIOException e) {
            StateWriteException failure = new StateWriteException(spool.root(),
                    e instanceof IOException io ? io : ((java.io.UncheckedIOException) e).getCause());
            health.failed(StorageHealth.SPOOL, failure.getMessage());
            throw failure;
        }
    }

    private List<SpoolEntry> spoolAll(List<OutboundEvent> events) throws IOException {
        List<SpoolEntry> entries = new ArrayList<>();
        for (Sink sink : registry.sinks()) {
            List<OutboundEvent> accepted = events.stream().filter(sink.filter()).toList();
            if (accepted.isEmpty()) {
                continue;
            }
            if (sink.batched()) {
                entries.add(storeBatch(sink, accepted));
            } else if (accepted.size() >= SpoolDocument.MIN_MESSAGES) {
                // One file for the lot: creating a file costs 0.2–1 ms of kernel time on ext4 (BENCHMARKS.md).
                List<String> eventIds = new ArrayList<>(accepted.size());
                List<byte[]> payloads = new ArrayList<>(accepted.size());
                for (OutboundEvent event : accepted) {
                    eventIds.add(EventIds.of(event.cloudEvent()));
                    payloads.add(MAPPER.writeValueAsBytes(event.cloudEvent()));
                }
                entries.addAll(spool.writeDocument(sink, accepted.get(accepted.size() - 1).seq(), eventIds, payloads));
            } else {
                // Each sink's entries in sequence order: that is the order its lanes are given them.
                for (OutboundEvent event : accepted) {
                    entries.add(spool.write(sink, event.seq(), EventIds.of(event.cloudEvent()),
                            MAPPER.writeValueAsBytes(event.cloudEvent())));
                }
            }
        }
        return entries;
    }

    /**
     * A batch is named after its first transition. After a crash the outbox may hold that batch plus what
     * was recorded in between (an approval): the file already there keeps the ones it has, the rest go in a
     * batch of their own. A file holding other transitions is never overwritten.
     */
    private SpoolEntry storeBatch(Sink sink, List<OutboundEvent> accepted) throws IOException {
        List<OutboundEvent> rest = accepted;
        while (true) {
            ArrayNode batch = MAPPER.createArrayNode();
            rest.forEach(e -> batch.add(e.cloudEvent()));
            try {
                return spool.write(sink, rest.get(0).seq(), null, MAPPER.writeValueAsBytes(batch));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                java.util.Set<String> spooled = new java.util.HashSet<>();
                java.nio.file.Path there = spool.root().getFileSystem().getPath(e.getFile());
                MAPPER.readTree(java.nio.file.Files.readAllBytes(there)).forEach(event -> spooled.add(event.path("id").asText()));
                List<OutboundEvent> remaining = rest.stream().filter(event -> !spooled.contains(event.id())).toList();
                if (remaining.size() == rest.size()) {
                    throw e;
                }
                if (remaining.isEmpty()) {
                    return new SpoolEntry(sink.id(), sink.queue(), there);
                }
                rest = remaining;
            }
        }
    }

    /**
     * What the lanes are given: what this dispatch spooled; the first dispatch of a run (start-up recovery) gives
     * them everything waiting instead, the last run's leftovers and what it spooled itself, each file once.
     */
    public List<SpoolEntry> toQueue(List<SpoolEntry> spooled) throws IOException {
        if (replayed.getAndSet(true)) {
            return spooled;
        }
        List<SpoolEntry> waiting = pending();
        LOG.info("Replaying {} undelivered message(s) from the spool", waiting.size());
        return waiting;
    }

    /** Everything waiting in any spool, each sink's oldest first. */
    public List<SpoolEntry> pending() throws IOException {
        List<SpoolEntry> entries = new ArrayList<>();
        for (Sink sink : registry.sinks()) {
            entries.addAll(spool.pending(sink));
        }
        return entries;
    }
}
