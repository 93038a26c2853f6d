package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.http.ClientNetwork;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Budgets of wrong logins on the management port (token buckets held as the time each is full again, GCRA): per
 * network (IPv4 /24, IPv6 /64, all of loopback as one) and globally, so rotating source addresses gain nothing.
 * While a budget is spent, credentials are not checked at all (429). An address that logged in within
 * {@link #TRUST_FOR} has a budget of its own, so others' failures never lock out the operator. A good login also
 * gets a token (the login cookie): a request that carries a valid one has its credentials checked against that token's
 * own budget, whatever its address's, so wrong logins from the very same address (a local user, beside the
 * operator's SSH tunnel) cannot lock the operator out, and guessing gains no check, since the token is random
 * (an address or a password alone would be: the right password would be an oracle). Tokens are kept as their
 * SHA-256 only. At most {@value #MAX_REMEMBERED} networks, known addresses and tokens are remembered, the least
 * recently seen forgotten first.
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
    /** SHA-256 (hex) of a token issued at a good login → its own budget. */
    private final Map<String, Known> tokens = leastRecentlySeenForgotten();
    private final SecureRandom random = new SecureRandom();
    private Long global;

    private record Known(long lastGood, Long fullAt) {
    }

    LoginThrottle(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Zero when the credentials {@code address} sent may be checked now, else how long it must wait. */
    synchronized Duration retryAfter(String address) {
        return retryAfter(address, null);
    }

    /** The same for a request that carries {@code token} (null: none): a valid token's own budget decides. */
    synchronized Duration retryAfter(String address, String token) {
        long now = nanoClock.getAsLong();
        Known holder = token(token, now);
        if (holder != null) {
            return Duration.ofNanos(Math.max(0, wait(holder.fullAt, NETWORK_BURST, NETWORK_EVERY, now)));
        }
        Known own = known(address, now);
        long wait = own != null ? wait(own.fullAt, NETWORK_BURST, NETWORK_EVERY, now)
                : Math.max(wait(networks.get(network(address)), NETWORK_BURST, NETWORK_EVERY, now),
                        wait(global, GLOBAL_BURST, GLOBAL_EVERY, now));
        return Duration.ofNanos(Math.max(0, wait));
    }

    /** A wrong login from {@code address}: spends from its budgets. */
    synchronized void failed(String address) {
        failed(address, null);
    }

    /** A wrong login carrying {@code token}: a valid token's budget pays for it, else the address's. */
    synchronized void failed(String address, String token) {
        long now = nanoClock.getAsLong();
        Known holder = token(token, now);
        if (holder != null) {
            tokens.put(digest(token), new Known(holder.lastGood, spend(holder.fullAt, NETWORK_EVERY, now)));
            return;
        }
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
        succeeded(address, null);
    }

    /** A good login carrying {@code token}: a new token when that one is not valid (null: it is kept). */
    synchronized String succeeded(String address, String token) {
        long now = nanoClock.getAsLong();
        Known own = known(address, now);
        known.put(address, new Known(now, own == null ? null : own.fullAt));
        if (token(token, now) != null) {
            return null;
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String issued = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        tokens.put(digest(issued), new Known(now, null));
        return issued;
    }

    synchronized int rememberedNetworks() {
        return networks.size();
    }

    /** See {@link ClientNetwork}: loopback is one network, as any local process can pick any 127.x.y.z. */
    static String network(String address) {
        return ClientNetwork.of(address);
    }

    /** The budget of a token issued within {@link #TRUST_FOR}, or null. Looked up by its SHA-256: timing tells nothing. */
    private Known token(String token, long now) {
        if (token == null || token.isEmpty() || token.length() > 100) {
            return null;
        }
        String key = digest(token);
        Known holder = tokens.get(key);
        if (holder != null && now - holder.lastGood >= TRUST_FOR.toNanos()) {
            tokens.remove(key);
            return null;
        }
        return holder;
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
