package io.github.scheduledeventsbridge.management;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Bounds password guessing on the management port with budgets of wrong logins, so that neither many addresses
 * nor one address can guess fast, and an operator who logged in before is not locked out by someone else.
 *
 * <ul>
 *   <li><b>Per network and globally.</b> Wrong logins are counted per network (an IPv4 /24, an IPv6 /64, and every
 *   loopback address together: 127.0.0.1, 127.0.0.2, … and ::1 are one network) and for all addresses together.
 *   A network may fail {@value #NETWORK_BURST} times at once, then once per {@link #NETWORK_EVERY}; all networks
 *   together {@value #GLOBAL_BURST} times, then once per {@link #GLOBAL_EVERY}. While either budget of a request is
 *   spent, its credentials are not checked at all (the right password included: 429 with Retry-After), so guessing
 *   from rotating source addresses gains nothing.</li>
 *   <li><b>Known addresses.</b> An address that logged in correctly in the last {@link #TRUST_FOR} (the operator's
 *   tunnel, the metrics scraper) has a budget of its own instead ({@value #NETWORK_BURST} at once, then one per
 *   {@link #NETWORK_EVERY}): failures elsewhere, on its network included, never hold it back. Only failures from
 *   that very address can, because nothing tells two clients on one address apart before their password is
 *   checked.</li>
 *   <li>Memory is bounded: at most {@value #MAX_REMEMBERED} networks and as many known addresses, the least
 *   recently seen forgotten first; a forgotten network's budget is full again, which the global budget bounds.</li>
 * </ul>
 * A budget is a token bucket held as the time at which it would be full again (GCRA): one number per entry.
 */
final class LoginThrottle {

    static final int NETWORK_BURST = 10;
    static final Duration NETWORK_EVERY = Duration.ofSeconds(10);
    static final int GLOBAL_BURST = 30;
    static final Duration GLOBAL_EVERY = Duration.ofSeconds(3);
    static final Duration TRUST_FOR = Duration.ofHours(24);
    static final int MAX_REMEMBERED = 10_000;

    private final LongSupplier nanoClock;
    /** Network → when its budget is full again (nanoTime). Access order: the eldest is the least recently seen. */
    private final Map<String, Long> networks = new LinkedHashMap<>(64, 0.75f, true);
    /** Address with a recent good login → its own budget. */
    private final Map<String, Known> known = new LinkedHashMap<>(16, 0.75f, true);
    private Long global;

    private static final class Known {
        long lastGood;
        Long fullAt;
    }

    LoginThrottle() {
        this(System::nanoTime);
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
            own.fullAt = spend(own.fullAt, NETWORK_EVERY, now);
            return;
        }
        networks.put(network(address), spend(networks.get(network(address)), NETWORK_EVERY, now));
        global = spend(global, GLOBAL_EVERY, now);
        forgetEldest(networks);
    }

    /** A good login: the address is known from now on (for {@link #TRUST_FOR}). */
    synchronized void succeeded(String address) {
        long now = nanoClock.getAsLong();
        Known own = known(address, now);
        if (own == null) {
            own = new Known();
            known.put(address, own);
            forgetEldest(known);
        }
        own.lastGood = now;
    }

    synchronized int rememberedNetworks() {
        return networks.size();
    }

    /**
     * The network an address counts in: IPv4 /24, IPv6 /64, and all of loopback as one (any local process can pick
     * any 127.x.y.z source address). Something that is not an address literal counts on its own.
     */
    static String network(String address) {
        if (address == null || address.isEmpty()
                || !address.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':' || c == '%')) {
            return String.valueOf(address);
        }
        try {
            InetAddress parsed = InetAddress.getByName(address); // a literal: no name lookup
            if (parsed.isLoopbackAddress()) {
                return "loopback";
            }
            byte[] bytes = parsed.getAddress();
            return bytes.length == 4 ? (bytes[0] & 255) + "." + (bytes[1] & 255) + "." + (bytes[2] & 255) + ".0/24"
                    : HexFormat.of().formatHex(bytes, 0, 8) + "/64";
        } catch (UnknownHostException e) {
            return address;
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

    private static void forgetEldest(Map<String, ?> remembered) {
        if (remembered.size() > MAX_REMEMBERED) {
            remembered.remove(remembered.keySet().iterator().next());
        }
    }
}
