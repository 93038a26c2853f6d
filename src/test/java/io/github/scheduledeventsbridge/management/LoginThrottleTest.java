package io.github.scheduledeventsbridge.management;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's arithmetic on a hand-driven clock. */
class LoginThrottleTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LoginThrottle throttle = new LoginThrottle(now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void fiveFreeFailuresThenALockThatDoublesUpToFiveMinutes() {
        for (int i = 0; i < LoginThrottle.FREE_FAILURES - 1; i++) {
            throttle.failed("10.0.0.1");
            assertThat(throttle.retryAfter("10.0.0.1")).isZero();
        }
        throttle.failed("10.0.0.1");
        assertThat(throttle.retryAfter("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
        assertThat(throttle.retryAfter("10.0.0.2")).as("other addresses are not affected").isZero();

        advance(Duration.ofSeconds(1));
        assertThat(throttle.retryAfter("10.0.0.1")).isZero();
        throttle.failed("10.0.0.1");
        assertThat(throttle.retryAfter("10.0.0.1")).isEqualTo(Duration.ofSeconds(2));
        for (int i = 0; i < 30; i++) {
            advance(throttle.retryAfter("10.0.0.1"));
            throttle.failed("10.0.0.1");
        }
        assertThat(throttle.retryAfter("10.0.0.1")).isEqualTo(LoginThrottle.MAX_LOCK);
    }

    @Test
    void aGoodLoginOrAQuarterOfAnHourWithoutFailuresStartsAfresh() {
        for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++) {
            throttle.failed("a");
            throttle.failed("b");
        }
        advance(Duration.ofSeconds(1));
        throttle.succeeded("a");
        throttle.failed("a");
        assertThat(throttle.retryAfter("a")).as("one failure after a good login").isZero();

        advance(LoginThrottle.FORGET_AFTER);
        assertThat(throttle.retryAfter("b")).isZero();
        throttle.failed("b");
        assertThat(throttle.retryAfter("b")).as("forgotten: the free failures again").isZero();
    }

    @Test
    void manyFailuresFromManyAddressesLockEveryAddressThatFailedButNotAnOperatorWhoNeverDid() {
        for (int i = 0; i < LoginThrottle.GLOBAL_FAILURES_PER_MINUTE; i++) {
            throttle.failed("198.51.100." + i);
        }
        assertThat(throttle.retryAfter("198.51.100.1")).as("one failure, but the global limit is reached")
                .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
        assertThat(throttle.retryAfter("203.0.113.7")).as("the operator, who never failed, gets in").isZero();
        throttle.failed("203.0.113.9");
        assertThat(throttle.retryAfter("203.0.113.9")).as("a new address gets one try, then waits").isPositive();
        advance(Duration.ofMinutes(1));
        assertThat(throttle.retryAfter("198.51.100.1")).isZero();
    }

    @Test
    void memoryIsBounded() {
        for (int i = 0; i < LoginThrottle.MAX_ADDRESSES + 500; i++) {
            throttle.failed("addr-" + i);
            if (i % LoginThrottle.GLOBAL_FAILURES_PER_MINUTE == 0) {
                advance(Duration.ofMinutes(1));
            }
        }
        assertThat(throttle.rememberedAddresses()).isLessThanOrEqualTo(LoginThrottle.MAX_ADDRESSES);
    }
}
