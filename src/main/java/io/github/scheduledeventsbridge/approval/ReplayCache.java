package io.github.scheduledeventsbridge.approval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Signatures already used, so a captured request cannot be sent again, also after a restart: they are kept in
 * {@code approvals-replay.json} in the state directory, written atomically (and forced to disk) before the
 * approval is forwarded to IMDS.
 *
 * <p>An entry may go only when both clocks agree it is useless: the wall clock says its signed timestamp is more
 * than the window (plus a minute) in the past, so the gate would refuse it anyway, AND at least twice the window
 * has passed on the monotonic clock since it was used (since loading, after a restart). A clock that jumps forward
 * therefore cannot expire an entry early, and one that jumps back keeps the entry longer, never re-opening it.
 *
 * <p>Bounded: when {@code capacity} unexpired entries are held, a new approval is refused ({@link Use#FULL}, 503)
 * rather than evicting an entry that could then be replayed. Only requests with a valid signature get here, so
 * only a holder of the secret can fill it. A file that cannot be read is not trusted to be empty: approvals are
 * then refused for twice the window, after which every signature it could have held has expired.
 */
public final class ReplayCache {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayCache.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    public static final String FILE_NAME = "approvals-replay.json";

    public enum Use { FIRST, REPLAY, FULL }

    private record Entry(long timestamp, long usedAtNanos) {
    }

    private final Path file;
    private final int capacity;
    private final long windowSeconds;
    private final Clock clock;
    private final LongSupplier nanos;
    private final LinkedHashMap<String, Entry> seen = new LinkedHashMap<>();
    private long refuseAllUntilNanos;
    private boolean refusingAll;

    /** {@code file} null: memory only. */
    public ReplayCache(Path file, int capacity, Duration window, Clock clock, LongSupplier nanos) {
        this.file = file;
        this.capacity = capacity;
        this.windowSeconds = window.toSeconds();
        this.clock = clock;
        this.nanos = nanos;
        load();
    }

    public static ReplayCache inStateDir(Path stateDir, int capacity, Duration window) {
        return new ReplayCache(stateDir.resolve(FILE_NAME), capacity, window, Clock.systemUTC(), System::nanoTime);
    }

    /**
     * Records {@code signature} (over {@code timestamp}, Unix seconds) as used. FIRST means it was not used
     * before and is now on disk; an IOException means it could not be recorded and must not be forwarded.
     */
    public synchronized Use use(String signature, long timestamp) throws IOException {
        long now = nanos.getAsLong();
        if (refusingAll && now - refuseAllUntilNanos < 0) {
            return Use.FULL;
        }
        refusingAll = false;
        evict(now);
        if (seen.containsKey(signature)) {
            return Use.REPLAY;
        }
        if (seen.size() >= capacity) {
            return Use.FULL;
        }
        seen.put(signature, new Entry(timestamp, now));
        save();
        return Use.FIRST;
    }

    public synchronized int size() {
        return seen.size();
    }

    private void evict(long now) {
        long wallSeconds = clock.instant().getEpochSecond();
        long keepNanos = Duration.ofSeconds(2 * windowSeconds).toNanos();
        Iterator<Map.Entry<String, Entry>> entries = seen.entrySet().iterator();
        while (entries.hasNext()) {
            Entry entry = entries.next().getValue();
            boolean wallExpired = wallSeconds - entry.timestamp() > windowSeconds + 60;
            boolean monotonicExpired = now - entry.usedAtNanos() > keepNanos;
            if (wallExpired && monotonicExpired) {
                entries.remove();
            }
        }
    }

    private void save() throws IOException {
        if (file == null) {
            return;
        }
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode used = root.putArray("used");
        seen.forEach((signature, entry) -> used.addObject().put("signature", signature).put("timestamp", entry.timestamp()));
        AtomicFiles.write(file, MAPPER.writeValueAsBytes(root));
    }

    private void load() {
        if (file == null || !Files.exists(file)) {
            return;
        }
        long now = nanos.getAsLong();
        try {
            JsonNode root = MAPPER.readTree(Files.readAllBytes(file));
            for (JsonNode entry : root.path("used")) {
                String signature = entry.path("signature").asText("");
                if (!signature.isEmpty() && entry.path("timestamp").canConvertToLong()) {
                    // The monotonic clock restarted with the JVM: the entry's 2 × window starts again now.
                    seen.put(signature, new Entry(entry.path("timestamp").asLong(), now));
                }
            }
        } catch (IOException | RuntimeException e) {
            refusingAll = true;
            refuseAllUntilNanos = now + Duration.ofSeconds(2 * windowSeconds).toNanos();
            LOG.error("Cannot read {} ({}): remote approvals are refused for {} s, until every signature it could "
                    + "hold has expired", file, e.getClass().getSimpleName(), 2 * windowSeconds);
        }
    }
}
