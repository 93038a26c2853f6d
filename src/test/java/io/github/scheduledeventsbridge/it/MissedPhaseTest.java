package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The agent saw a Reboot Scheduled, was stopped, and while it was away the VM rebooted and IMDS dropped the
 * event: it must report the reboot that happened (Completed, startObserved=false), not a cancellation.
 */
class MissedPhaseTest {

    private static final String REBOOT = "AAAAAAAA-5555-0000-0000-00000000000A";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    private final AtomicReference<Instant> bootTime = new AtomicReference<>(Instant.now().minus(Duration.ofDays(1)));

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s").bind("bootTime", (BootTime) bootTime::get);

    @Test
    void aRebootWhoseStartWasMissedAcrossARestartIsReportedCompleted() throws Exception {
        fixture.imds().serve(Docs.document(2, Docs.scheduled(REBOOT, "Reboot", NOT_BEFORE, "vm")));
        try (InProcessAgent first = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
        }
        // While the agent is stopped the VM reboots (its boot time moves past the last observation) and IMDS
        // drops the finished event: the Started phase was never seen.
        bootTime.set(Instant.now());
        fixture.imds().serve(Docs.document(4));
        try (InProcessAgent second = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 2);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
        }
        assertThat(fixture.webhook().transitionsOf(REBOOT)).containsExactly("Scheduled", "Completed");
        WebhookReceiver.Request completed = fixture.webhook().delivered().get(1);
        assertThat(completed.json().at("/data/startObserved").isBoolean()).isTrue();
        assertThat(completed.json().at("/data/startObserved").asBoolean()).isFalse();
        assertThat(completed.json().at("/data/previousStatus").asText()).isEqualTo("Scheduled");
        assertThat(fixture.webhook().delivered().get(0).json().path("data").has("startObserved")).isFalse();
    }

    @Test
    void withoutARebootTheSameVanishingIsCancelledAndSaysTheStartWasNotObserved() throws Exception {
        fixture.imds().serve(Docs.document(2, Docs.scheduled(REBOOT, "Reboot", NOT_BEFORE, "vm")));
        try (InProcessAgent first = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
        }
        fixture.imds().serve(Docs.document(4));
        try (InProcessAgent second = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 2);
        }
        assertThat(fixture.webhook().transitionsOf(REBOOT)).containsExactly("Scheduled", "Cancelled");
        assertThat(fixture.webhook().delivered().get(1).json().at("/data/startObserved").asBoolean(true)).isFalse();
    }
}
