package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An approval IMDS accepts after the routes started and before start-up recovery dispatched the outbox: the
 * Approved transition is delivered, logged and counted once, like any other.
 */
class ApprovalDuringStartTest {

    private static final String REBOOT = "AAAAAAAA-0000-0000-0000-00000000000A";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    @Test
    void anApprovalRecordedBeforeStartUpRecoveryIsLoggedAndCountedOnce() throws Exception {
        String scheduled = Docs.scheduled(REBOOT, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-under-test");
        ScheduledEvent event = new ImdsDocumentParser().parse(Docs.document(1, scheduled)).events().get(0);
        // Camel tells "started" to event notifiers before it runs start-up listeners (start-up recovery among them):
        // what an accepted approval records in that window, recorded the same way.
        EventNotifierSupport approveWhileStarting = new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent started) throws Exception {
                TransitionJournal journal = getCamelContext().getRegistry().findSingleByType(TransitionJournal.class);
                journal.recordApproved(List.of(new DetectedTransition(TransitionType.Approved, event,
                        event.eventStatus(), event.eventStatus(), 1, new DetectedTransition.Approval("remote", null, false))));
            }

            @Override
            public boolean isEnabled(CamelEvent event) {
                return event instanceof CamelEvent.CamelContextStartedEvent;
            }
        };
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(1, scheduled));
            try (InProcessAgent agent = fixture.builder().bind("approveWhileStarting", approveWhileStarting).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(REBOOT).contains("Scheduled"));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 3);

                MeterRegistry meters = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
                assertThat(meters.get("bridge.transitions").tag("transition", "Approved").counter().count()).isEqualTo(1.0);
                assertThat(meters.get("bridge.transitions").tag("transition", "Scheduled").counter().count()).isEqualTo(1.0);
            }
            assertThat(webhook.transitionsOf(REBOOT)).containsExactlyInAnyOrder("Approved", "Scheduled");
            assertThat(log.lines().stream().filter(l -> l.contains("Approved Reboot " + REBOOT)).count())
                    .as("one line for the Approved transition").isEqualTo(1);
        }
    }
}
