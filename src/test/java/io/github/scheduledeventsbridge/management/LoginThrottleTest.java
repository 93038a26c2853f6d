package io.github.scheduledeventsbridge.management;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's budgets on a hand-driven clock. */
class LoginThrottleTest {

    private final AtomicLong now = new AtomicLong(-5_000_000_000L); // nanoTime may be negative
    private final LoginThrottle throttle = new LoginThrottle(now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aNetworkFailsItsBurstThenOncePerInterval() {
        for (int i = 0; i < LoginThrottle.NETWORK_BURST; i++) {
            assertThat(throttle.retryAfter("10.0.0.1")).isZero();
            throttle.failed("10.0.0.1");
        }
        assertThat(throttle.retryAfter("10.0.0.1")).isEqualTo(LoginThrottle.NETWORK_EVERY);
        assertThat(throttle.retryAfter("10.0.0.77")).as("the same /24").isEqualTo(LoginThrottle.NETWORK_EVERY);
        assertThat(throttle.retryAfter("10.0.1.1")).as("another network").isZero();
        advance(LoginThrottle.NETWORK_EVERY);
        assertThat(throttle.retryAfter("10.0.0.1")).isZero();
        throttle.failed("10.0.0.1");
        assertThat(throttle.retryAfter("10.0.0.1")).isEqualTo(LoginThrottle.NETWORK_EVERY);
        advance(LoginThrottle.NETWORK_EVERY.multipliedBy(LoginThrottle.NETWORK_BURST));
        assertThat(throttle.retryAfter("10.0.0.1")).as("refilled").isZero();
    }

    @Test
    void rotatingLoopbackAddressesShareOneBudget() {
        int checked = 0;
        for (int i = 0; i < 1000; i++) {
            String address = "127." + (i / 250) + "." + (i % 250) + ".1";
            if (throttle.retryAfter(address).isZero()) {
                checked++;
                throttle.failed(address);
            }
        }
        assertThat(checked).isEqualTo(LoginThrottle.NETWORK_BURST);
        assertThat(throttle.retryAfter("::1")).as("IPv6 loopback is the same network").isPositive();
    }

    @Test
    void manyNetworksMeetTheGlobalBudget() {
        int checked = 0;
        for (int i = 0; i < 1000; i++) {
            String address = "2001:db8:" + Integer.toHexString(i) + "::5";
            if (throttle.retryAfter(address).isZero()) {
                checked++;
                throttle.failed(address);
            }
        }
        assertThat(checked).isEqualTo(LoginThrottle.GLOBAL_BURST);
        assertThat(throttle.retryAfter("198.51.100.4")).as("a fresh network waits too").isPositive()
                .isLessThanOrEqualTo(LoginThrottle.GLOBAL_EVERY);
    }

    @Test
    void anAddressThatLoggedInIsNotHeldBackByOthersFailures() {
        throttle.succeeded("127.0.0.1");
        for (int i = 0; i < 100; i++) {
            throttle.failed("127.0.0." + (2 + i));
            throttle.failed("2001:db8:" + i + "::1");
        }
        assertThat(throttle.retryAfter("127.0.0.2")).isPositive();
        assertThat(throttle.retryAfter("127.0.0.1")).as("the operator's tunnel, the scraper").isZero();

        // Its own failures (a typo, or someone else on that very address) spend a budget of its own.
        for (int i = 0; i < LoginThrottle.NETWORK_BURST - 1; i++) {
            throttle.failed("127.0.0.1");
        }
        assertThat(throttle.retryAfter("127.0.0.1")).isZero();
        throttle.failed("127.0.0.1");
        assertThat(throttle.retryAfter("127.0.0.1")).isEqualTo(LoginThrottle.NETWORK_EVERY);

        advance(LoginThrottle.TRUST_FOR);
        for (int i = 0; i < LoginThrottle.NETWORK_BURST; i++) {
            throttle.failed("127.0.0.2");
        }
        assertThat(throttle.retryAfter("127.0.0.1")).as("no longer known: the loopback budget").isPositive();
    }

    @Test
    void networksAreIpv4Slash24Ipv6Slash64AndLoopbackAsOne() {
        assertThat(LoginThrottle.network("192.0.2.77")).isEqualTo("192.0.2.0/24");
        assertThat(LoginThrottle.network("::ffff:192.0.2.77")).isEqualTo("192.0.2.0/24");
        assertThat(LoginThrottle.network("2001:db8:1:2:3:4:5:6")).isEqualTo(LoginThrottle.network("2001:db8:1:2::9"));
        assertThat(LoginThrottle.network("2001:db8:1:3::9")).isNotEqualTo(LoginThrottle.network("2001:db8:1:2::9"));
        assertThat(LoginThrottle.network("127.9.8.7")).isEqualTo(LoginThrottle.network("::1")).isEqualTo("loopback");
        assertThat(LoginThrottle.network("not-an-address")).isEqualTo("not-an-address");
    }

    @Test
    void aGoodLoginsTokenHasItsOwnBudgetWhateverItsAddressHas() {
        String token = throttle.succeeded("127.0.0.1", null);
        assertThat(token).as("a random token, base64url of 32 bytes").matches("[A-Za-z0-9_-]{43}");
        assertThat(throttle.succeeded("127.0.0.1", token)).as("a valid token is kept").isNull();
        for (int i = 0; i < 100; i++) {
            throttle.failed("127.0.0.1", null); // a local user guessing from the operator's very address
        }
        assertThat(throttle.retryAfter("127.0.0.1")).as("the address alone").isPositive();
        assertThat(throttle.retryAfter("127.0.0.1", token)).as("the operator, who carries the token").isZero();
        assertThat(throttle.retryAfter("127.0.0.1", token.substring(1) + "A")).as("a made-up token").isPositive();

        // Wrong logins that carry the token (a typo, or a stolen cookie) spend the token's budget, not anyone else's.
        for (int i = 0; i < LoginThrottle.NETWORK_BURST; i++) {
            assertThat(throttle.retryAfter("10.0.0.1", token)).isZero();
            throttle.failed("10.0.0.1", token);
        }
        assertThat(throttle.retryAfter("10.0.0.1", token)).isEqualTo(LoginThrottle.NETWORK_EVERY);
        assertThat(throttle.retryAfter("10.0.0.1")).as("that network's own budget is untouched").isZero();

        advance(LoginThrottle.TRUST_FOR);
        for (int i = 0; i < LoginThrottle.NETWORK_BURST; i++) {
            throttle.failed("127.0.0.2", null);
        }
        assertThat(throttle.retryAfter("127.0.0.1", token)).as("expired: loopback's budget again").isPositive();
        assertThat(throttle.succeeded("127.0.0.1", token)).as("a new one").isNotNull().isNotEqualTo(token);
    }

    @Test
    void memoryIsBounded() {
        for (int i = 0; i < LoginThrottle.MAX_REMEMBERED + 500; i++) {
            throttle.failed("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
            throttle.failed((i >> 8 & 255) + "." + (i & 255) + ".0.1");
        }
        assertThat(throttle.rememberedNetworks()).isLessThanOrEqualTo(LoginThrottle.MAX_REMEMBERED);
    }
}
