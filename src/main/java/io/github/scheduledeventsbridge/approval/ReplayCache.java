package io.github.scheduledeventsbridge.approval;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Signatures already used, so a captured request cannot be sent again. Bounded in size and time: an
 * entry older than the timestamp window can go, since its timestamp would be refused anyway.
 */
public final class ReplayCache {

    private final int capacity;
    private final Duration retention;
    private final LinkedHashMap<String, Instant> seen = new LinkedHashMap<>();

    public ReplayCache(int capacity, Duration retention) {
        this.capacity = capacity;
        this.retention = retention;
    }

    /** True the first time a signature is presented, false for every replay. */
    public synchronized boolean firstUse(String signature, Instant now) {
        evict(now);
        if (seen.containsKey(signature)) {
            return false;
        }
        seen.put(signature, now);
        return true;
    }

    public synchronized int size() {
        return seen.size();
    }

    private void evict(Instant now) {
        Instant oldest = now.minus(retention);
        Iterator<Map.Entry<String, Instant>> entries = seen.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<String, Instant> entry = entries.next();
            if (entry.getValue().isBefore(oldest) || seen.size() >= capacity) {
                entries.remove();
            } else {
                break;
            }
        }
    }
}
