package io.github.scheduledeventsbridge.approval;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** Refusals are logged at most N times a minute; the rest are counted and summed up when the minute is over. */
class ApprovalAuditTest {

    @Test
    void refusalsBeyondTheLimitAreCountedNotLogged() {
        Instant start = Instant.parse("2026-11-22T10:00:00Z");
        Clock[] clock = {Clock.fixed(start, ZoneOffset.UTC)};
        ApprovalAudit audit = new ApprovalAudit(new Clock() {
            @Override
            public Instant instant() {
                return clock[0].instant();
            }

            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        }, 20);
        for (int i = 0; i < 1254; i++) {
            audit.refused("192.0.2.1", 401, "signature does not match", null);
        }
        assertThat(audit.suppressed()).isEqualTo(1234);
        clock[0] = Clock.fixed(start.plus(Duration.ofSeconds(61)), ZoneOffset.UTC);
        audit.flush();
        assertThat(audit.suppressed()).isZero();
    }
}
