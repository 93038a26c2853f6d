package io.github.scheduledeventsbridge.health;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** How often the outage summaries are checked: often enough to be on time, rarely enough to cost nothing idle. */
class OutageLogTickTest {

    @Test
    void aTenthOfTheSummaryIntervalSoTheDefaultWakesEveryThirtySecondsNotEverySecond() {
        assertThat(OutageLog.tickMillis(Duration.ofMinutes(5))).isEqualTo(30_000);
        assertThat(OutageLog.tickMillis(Duration.ofSeconds(2))).isEqualTo(200);
        assertThat(OutageLog.tickMillis(Duration.ofMillis(100))).isEqualTo(50);
    }
}
