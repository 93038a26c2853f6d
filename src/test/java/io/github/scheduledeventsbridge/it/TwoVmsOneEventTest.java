package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One event naming two VMs, each with its agent and approval after prepare: one approval would release both, so
 * neither approves early, however quick its own prepare; each says why.
 */
class TwoVmsOneEventTest {

    private static final String EVENT = "2BB2BB2B-0000-0000-0000-000000000002";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");
    /** The other VM's agent keeps its own state. */
    @TempDir
    Path otherState;

    @Test
    void neitherAgentApprovesAnEventNamingBothVmsAfterItsOwnPrepare() throws Exception {
        fixture.imds().serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test", "vm-other")));
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s");
             InProcessAgent quick = fixture.postingTo(webhook.url()).with("bridge.action.prepare.command", "sleep 1")
                     .with("bridge.approval.auto.after-prepare", "true").start();
             InProcessAgent slow = InProcessAgent.builder(otherState).imds(fixture.imds())
                     .with("bridge.imds.instance-url", fixture.imds().instanceUrl("vm-other"))
                     .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s")
                     .with("bridge.action.prepare.command", "sleep 5")
                     .with("bridge.approval.auto.after-prepare", "true").start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.transitionsOf(EVENT).stream()
                    .filter("ActionSucceeded"::equals).count() == 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> log.text().contains("also name [vm-under-test]")
                    && log.text().contains("also name [vm-other]"));
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().documentsServed() >= served + 10);

            assertThat(fixture.imds().startRequests()).as("no approval reached IMDS").isEmpty();
            assertThat(webhook.transitionsOf(EVENT)).doesNotContain("Approved");
            assertThat(log.lines().stream().filter(l -> l.contains("Prepare of " + EVENT + " succeeded; not approved"))
                    .count()).as("once per agent").isEqualTo(2);
        }
    }
}
