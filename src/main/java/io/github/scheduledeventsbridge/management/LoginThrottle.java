package io.github.scheduledeventsbridge.management;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows password guessing on the management port, per client address and for all of them together.
 *
 * <ul>
 *   <li>Per address: the first {@value #FREE_FAILURES} wrong logins are answered 401 at once; each later one
 *   locks the address for 1 s, then 2 s, 4 s, … up to {@link #MAX_LOCK}. While locked, nothing it sends with
 *   credentials is checked, the right password included: it gets 429 and {@code Retry-After}. A good login
 *   (once unlocked) or {@link #FORGET_AFTER} without failures clears the record.</li>
 *   <li>Globally: more than {@value #GLOBAL_FAILURES_PER_MINUTE} wrong logins within a minute, from anywhere,
 *   lock every address that has failed before until that minute is over (guessing from many addresses gets
 *   one try per new address). An address without failures, the operator's, is never locked out by others.</li>
 *   <li>Memory is bounded: at most {@value #MAX_ADDRESSES} addresses are remembered, the least recently seen
 *   forgotten first; an attacker cycling through more addresses meets the global limit.</li>
 * </ul>
 * Behind a reverse proxy every client has the proxy's address: the per-address limit then acts as a second
 * global one.
 */
final class LoginThrottle {

    static final int FREE_FAILURES = 5;
    static final Duration FIRST_LOCK = Duration.ofSeconds(1);
    static final Duration MAX_LOCK = Duration.ofMinutes(5);
    static final Duration FORGET_AFTER = Duration.ofMinutes(15);
    static final int GLOBAL_FAILURES_PER_MINUTE = 120;
    static final int MAX_ADDRESSES = 10_000;
    private static final long MINUTE_NANOS = Duration.ofMinutes(1).toNanos();

    private final LongSupplier nanoClock;
    private final Map<String, Record> addresses = new LinkedHashMap<>(64, 0.75f, true);
    private long globalWindowStart;
    private int globalFailures;

    private static final class Record {
        int failures;
        long lockedUntil;
        long lastFailure;
    }

    LoginThrottle() {
        this(System::nanoTime);
    }

    LoginThrottle(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.globalWindowStart = nanoClock.getAsLong();
    }

    /** Zero when {@code address} may try its credentials now, else how long it must wait. */
    synchronized Duration retryAfter(String address) {
        long now = nanoClock.getAsLong();
        long wait = 0;
        if (now - globalWindowStart >= MINUTE_NANOS) {
            globalWindowStart = now;
            globalFailures = 0;
        }
        Record record = addresses.get(address);
        // The global limit holds back only addresses that have guessed wrong before: wrong logins from
        // anywhere must not lock out an operator (or a metrics scraper) who never failed.
        if (record != null && globalFailures >= GLOBAL_FAILURES_PER_MINUTE) {
            wait = globalWindowStart + MINUTE_NANOS - now;
        }
        if (record != null) {
            if (now - record.lastFailure >= FORGET_AFTER.toNanos()) {
                addresses.remove(address);
            } else if (record.lockedUntil - now > wait) {
                wait = record.lockedUntil - now;
            }
        }
        return Duration.ofNanos(Math.max(0, wait));
    }

    /** A wrong login from {@code address}: counts it, and locks the address past the free attempts. */
    synchronized void failed(String address) {
        long now = nanoClock.getAsLong();
        globalFailures++;
        Record record = addresses.get(address);
        if (record == null) {
            if (addresses.size() >= MAX_ADDRESSES) {
                evict(now);
            }
            record = new Record();
            addresses.put(address, record);
        }
        record.failures++;
        record.lastFailure = now;
        int over = record.failures - FREE_FAILURES;
        if (over >= 0) {
            long lock = FIRST_LOCK.toNanos() << Math.min(over, 20);
            record.lockedUntil = now + Math.min(lock, MAX_LOCK.toNanos());
        }
    }

    /** A good login: the address starts afresh. */
    synchronized void succeeded(String address) {
        addresses.remove(address);
    }

    synchronized int rememberedAddresses() {
        return addresses.size();
    }

    /** Forgets stale records, then the least recently seen one if there are still too many. */
    private void evict(long now) {
        Iterator<Record> records = addresses.values().iterator();
        while (records.hasNext()) {
            if (now - records.next().lastFailure >= FORGET_AFTER.toNanos()) {
                records.remove();
            }
        }
        if (addresses.size() >= MAX_ADDRESSES) {
            Iterator<String> eldest = addresses.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }
}
