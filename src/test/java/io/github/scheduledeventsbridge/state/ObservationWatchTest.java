package io.github.scheduledeventsbridge.state;

import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.transitions.Continuity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class ObservationWatchTest {

    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
    private static final Instant BOOT = T0.minusSeconds(3600);

    private static ObservationWatch watch(Instant now) {
        return new ObservationWatch(Duration.ofSeconds(10), () -> BOOT, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    @DisplayName("the gap limit is three polls, and never below 10 s")
    void maxGap() {
        assertThat(ObservationWatch.maxGap(Duration.ofMillis(200))).isEqualTo(Duration.ofSeconds(10));
        assertThat(ObservationWatch.maxGap(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(10));
        assertThat(ObservationWatch.maxGap(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    @DisplayName("the first poll of a run is never watching, even with a recent persisted observation")
    void firstPollOfARun() {
        ObservationWatch watch = watch(T0);
        watch.restore(T0.minusSeconds(1));

        Continuity c = watch.now();

        assertThat(c.watching()).isFalse();
        assertThat(c.lastObserved()).isEqualTo(T0.minusSeconds(1));
        assertThat(c.bootTime()).isEqualTo(BOOT);
        assertThat(watch.needsPersisting()).isTrue();
    }

    @Test
    @DisplayName("within a run: watching up to the gap limit, not beyond it")
    void gapWithinARun() {
        ObservationWatch watch = watch(T0.plusSeconds(10));
        watch.observed(T0, true);
        assertThat(watch.now().watching()).isTrue();
        assertThat(watch.needsPersisting()).isFalse();

        ObservationWatch later = watch(T0.plusSeconds(11));
        later.observed(T0, true);
        assertThat(later.now().watching()).isFalse();
    }

    @Test
    @DisplayName("the boot time comes from btime in /proc/stat, null when unreadable")
    void bootTimeFromProcStat(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path stat = Files.writeString(dir.resolve("stat"), "cpu  1 2 3\nbtime 1795384472\nprocesses 9\n");

        assertThat(BootTime.procStat(stat).get()).isEqualTo(Instant.ofEpochSecond(1795384472L));
        assertThat(BootTime.procStat(dir.resolve("missing")).get()).isNull();
    }
}
