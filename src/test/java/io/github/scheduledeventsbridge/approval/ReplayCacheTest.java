package io.github.scheduledeventsbridge.approval;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Used signatures survive restarts and clock jumps, and the cache refuses rather than forgets when full. */
class ReplayCacheTest {

    private static final Duration WINDOW = Duration.ofSeconds(300);
    private static final long T0 = 1_800_000_000L;

    @TempDir
    Path dir;
    private Instant wall = Instant.ofEpochSecond(T0);
    private final AtomicLong nanos = new AtomicLong(42);

    private ReplayCache cache(int capacity) {
        Clock clock = new Clock() {
            @Override
            public Instant instant() {
                return wall;
            }

            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
        return new ReplayCache(dir.resolve(ReplayCache.FILE_NAME), capacity, WINDOW, clock, nanos::get);
    }

    private void elapse(Duration wallStep, Duration monotonicStep) {
        wall = wall.plus(wallStep);
        nanos.addAndGet(monotonicStep.toNanos());
    }

    @Test
    void aSignatureIsUsedOnceAlsoAfterARestart() throws Exception {
        assertThat(cache(10).use("sha256=a", T0)).isEqualTo(ReplayCache.Use.FIRST);
        ReplayCache restarted = cache(10);
        assertThat(restarted.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.REPLAY);
        assertThat(restarted.use("sha256=b", T0)).isEqualTo(ReplayCache.Use.FIRST);
    }

    @Test
    void anEntryGoesOnlyWhenBothClocksSayItExpired() throws Exception {
        ReplayCache cache = cache(10);
        cache.use("sha256=a", T0);
        // The wall clock jumps an hour ahead, then back: the monotonic clock has barely moved, the entry stays.
        elapse(Duration.ofHours(1), Duration.ofSeconds(1));
        cache.use("sha256=other", T0 + 3600);
        elapse(Duration.ofHours(-1), Duration.ofSeconds(1));
        assertThat(cache.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.REPLAY);
        // The wall clock jumps back: much monotonic time passes, but by the wall clock the timestamp is still valid.
        elapse(Duration.ofMinutes(-30), Duration.ofHours(2));
        assertThat(cache.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.REPLAY);
        // Both clocks agree it is over: it goes (the gate would refuse its timestamp anyway).
        elapse(Duration.ofMinutes(30 + 7), Duration.ofMinutes(11));
        cache.use("sha256=trigger", wall.getEpochSecond());
        assertThat(cache.size()).isEqualTo(2); // "other" (an hour ahead) and "trigger"
    }

    @Test
    void aRestartRestartsTheMonotonicBound() throws Exception {
        cache(10).use("sha256=a", T0);
        elapse(Duration.ofHours(1), Duration.ofHours(1)); // the agent was down for an hour: wall says expired
        ReplayCache restarted = cache(10);
        restarted.use("sha256=trigger", wall.getEpochSecond());
        elapse(Duration.ofHours(-1), Duration.ofSeconds(1)); // the clock is corrected back
        assertThat(restarted.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.REPLAY);
    }

    @Test
    void aFullCacheRefusesInsteadOfForgetting() throws Exception {
        ReplayCache cache = cache(2);
        cache.use("sha256=a", T0);
        cache.use("sha256=b", T0);
        assertThat(cache.use("sha256=c", T0)).isEqualTo(ReplayCache.Use.FULL);
        assertThat(cache.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.REPLAY);
        elapse(Duration.ofMinutes(11), Duration.ofMinutes(11));
        assertThat(cache.use("sha256=c", wall.getEpochSecond())).isEqualTo(ReplayCache.Use.FIRST);
    }

    @Test
    void anUnreadableFileRefusesApprovalsForTwiceTheWindow() throws Exception {
        Files.writeString(dir.resolve(ReplayCache.FILE_NAME), "{not json");
        ReplayCache cache = cache(10);
        assertThat(cache.use("sha256=a", T0)).isEqualTo(ReplayCache.Use.FULL);
        elapse(Duration.ofMinutes(11), Duration.ofMinutes(11));
        assertThat(cache.use("sha256=a", wall.getEpochSecond())).isEqualTo(ReplayCache.Use.FIRST);
    }
}
