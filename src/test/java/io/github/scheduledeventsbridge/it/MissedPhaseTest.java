package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
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

    @TempDir
    Path state;
    private ScriptedImds imds;
    private WebhookReceiver webhook;
    private final AtomicReference<Instant> bootTime = new AtomicReference<>(Instant.now().minus(Duration.ofDays(1)));

    @BeforeEach
    void peers() throws Exception {
        imds = new ScriptedImds();
        webhook = WebhookReceiver.start("s");
    }

    @AfterEach
    void stop() {
        imds.close();
        webhook.close();
    }

    private InProcessAgent agent() throws Exception {
        return InProcessAgent.builder(state).imds(imds).bind("bootTime", (BootTime) bootTime::get)
                .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start();
    }

    @Test
    void aRebootWhoseStartWasMissedAcrossARestartIsReportedCompleted() throws Exception {
        imds.serve(Docs.document(2, Docs.scheduled(REBOOT, "Reboot", NOT_BEFORE, "vm")));
        try (InProcessAgent first = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
        }
        // While the agent is stopped the VM reboots (its boot time moves past the last observation) and IMDS
        // drops the finished event: the Started phase was never seen.
        bootTime.set(Instant.now());
        imds.serve(Docs.document(4));
        try (InProcessAgent second = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);
        }
        assertThat(webhook.transitionsOf(REBOOT)).containsExactly("Scheduled", "Completed");
        WebhookReceiver.Request completed = webhook.delivered().get(1);
        assertThat(completed.json().at("/data/startObserved").isBoolean()).isTrue();
        assertThat(completed.json().at("/data/startObserved").asBoolean()).isFalse();
        assertThat(completed.json().at("/data/previousStatus").asText()).isEqualTo("Scheduled");
        assertThat(webhook.delivered().get(0).json().path("data").has("startObserved")).isFalse();
    }

    @Test
    void withoutARebootTheSameVanishingIsCancelledAndSaysTheStartWasNotObserved() throws Exception {
        imds.serve(Docs.document(2, Docs.scheduled(REBOOT, "Reboot", NOT_BEFORE, "vm")));
        try (InProcessAgent first = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
        }
        imds.serve(Docs.document(4));
        try (InProcessAgent second = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
        }
        assertThat(webhook.transitionsOf(REBOOT)).containsExactly("Scheduled", "Cancelled");
        assertThat(webhook.delivered().get(1).json().at("/data/startObserved").asBoolean(true)).isFalse();
    }
}
