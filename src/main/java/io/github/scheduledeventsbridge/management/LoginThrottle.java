package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.http.ClientNetwork;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Budgets of wrong logins on the management port (token buckets held as the time each is full again, GCRA): per
 * network (IPv4 /24, IPv6 /64, all of loopback as one) and globally, so rotating source addresses gain nothing.
 * While a budget is spent, credentials are not checked at all (429). An address that logged in within
 * {@link #TRUST_FOR} has a budget of its own, so others' failures never lock out the operator. At most
 * {@value #MAX_REMEMBERED} networks and known addresses are remembered, the least recently seen forgotten first.
 */
final class LoginThrottle {

    static final int NETWORK_BURST = 10;
    static final Duration NETWORK_EVERY = Duration.ofSeconds(10);
    static final int GLOBAL_BURST = 30;
    static final Duration GLOBAL_EVERY = Duration.ofSeconds(3);
    static final Duration TRUST_FOR = Duration.ofHours(24);
    static final int MAX_REMEMBERED = 10_000;

    private final LongSupplier nanoClock;
    /** Network → when its budget is full again (nanoTime). */
    private final Map<String, Long> networks = leastRecentlySeenForgotten();
    /** Address with a recent good login → its own budget. */
    private final Map<String, Known> known = leastRecentlySeenForgotten();
    private Long global;

    private record Known(long lastGood, Long fullAt) {
    }

    LoginThrottle(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Zero when the credentials {@code address} sent may be checked now, else how long it must wait. */
    synchronized Duration retryAfter(String address) {
        long now = nanoClock.getAsLong();
        Known own = known(address, now);
        long wait = own != null ? wait(own.fullAt, NETWORK_BURST, NETWORK_EVERY, now)
                : Math.max(wait(networks.get(network(address)), NETWORK_BURST, NETWORK_EVERY, now),
                        wait(global, GLOBAL_BURST, GLOBAL_EVERY, now));
        return Duration.ofNanos(Math.max(0, wait));
    }

    /** A wrong login from {@code address}: spends from its budgets. */
    synchronized void failed(String address) {
        long now = nanoClock.getAsLong();
        Known own = known(address, now);
        if (own != null) {
            known.put(address, new Known(own.lastGood, spend(own.fullAt, NETWORK_EVERY, now)));
            return;
        }
        networks.put(network(address), spend(networks.get(network(address)), NETWORK_EVERY, now));
        global = spend(global, GLOBAL_EVERY, now);
    }

    /** A good login: the address is known from now on (for {@link #TRUST_FOR}). */
    synchronized void succeeded(String address) {
        long now = nanoClock.getAsLong();
        Known own = known(address, now);
        known.put(address, new Known(now, own == null ? null : own.fullAt));
    }

    synchronized int rememberedNetworks() {
        return networks.size();
    }

    /** See {@link ClientNetwork}: loopback is one network, as any local process can pick any 127.x.y.z. */
    static String network(String address) {
        return ClientNetwork.of(address);
    }

    private Known known(String address, long now) {
        Known own = known.get(address);
        if (own != null && now - own.lastGood >= TRUST_FOR.toNanos()) {
            known.remove(address);
            return null;
        }
        return own;
    }

    /** How long until a budget that is full again at {@code fullAt} has one failure left (≤ 0: now). */
    private static long wait(Long fullAt, int burst, Duration every, long now) {
        return fullAt == null ? 0 : fullAt - now - (burst - 1) * every.toNanos();
    }

    private static long spend(Long fullAt, Duration every, long now) {
        return (fullAt == null || fullAt - now < 0 ? now : fullAt) + every.toNanos();
    }

    /** Access order: the eldest entry is the least recently seen. */
    private static <V> Map<String, V> leastRecentlySeenForgotten() {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MAX_REMEMBERED;
            }
        };
    }
}
