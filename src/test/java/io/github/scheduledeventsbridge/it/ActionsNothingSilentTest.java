package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the action part says: approval failures with their cause and an end, outcome lines, metrics from start. */
class ActionsNothingSilentTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static final String EVENT = "5A1D0000-0000-0000-0000-000000000007";

    private static double approvals(InProcessAgent agent, String outcome) {
        MeterRegistry registry = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
        return Search.in(registry).name("bridge.action.approvals").tag("outcome", outcome).counter().count();
    }

    /** An event of this VM alone, a prepare that succeeds at once, and an IMDS that refuses every approval. */
    private InProcessAgent approvingAfterPrepareWhileImdsRefuses(WebhookReceiver webhook) throws Exception {
        fixture.imds().serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
        fixture.imds().answerStartRequestsWith(500);
        return fixture.postingTo(webhook.url()).with("bridge.action.prepare.command", "true")
                .with("bridge.approval.auto.after-prepare", "true").start();
    }

    @Test
    void aRefusedApprovalIsLoggedWithItsCauseRetriedTwiceAndThenGivenUpInSoManyWords() throws Exception {
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s");
             InProcessAgent agent = approvingAfterPrepareWhileImdsRefuses(webhook)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> log.text().contains("given up"));
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().documentsServed() >= served + 5);

            assertThat(fixture.imds().startRequests()).hasSize(3);
            assertThat(log.lines()).filteredOn(l -> l.contains("Approval of " + EVENT + " after its prepare failed"))
                    .hasSize(3).allMatch(l -> l.contains("IMDS refused the approval (HTTP 500)"));
            assertThat(log.lines()).as("Camel's exchange dump is no cause").noneMatch(l -> l.contains("Exchange["));
            assertThat(log.lines()).filteredOn(l -> l.contains("given up")).hasSize(1);
            assertThat(approvals(agent, "after-prepare-failed")).isEqualTo(3);
            assertThat(approvals(agent, "after-prepare-given-up")).isEqualTo(1);
        }
    }

    @Test
    void anApprovalIsNotRetriedOnceTheEventLeftScheduled() throws Exception {
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s");
             InProcessAgent agent = approvingAfterPrepareWhileImdsRefuses(webhook)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().startRequests().size() == 1);
            fixture.imds().serve(Docs.document(2, Docs.started(EVENT, "Reboot", "vm-under-test")));
            await().atMost(Duration.ofSeconds(30)).until(() -> log.text().contains("its approval is not retried"));
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().documentsServed() >= served + 5);

            assertThat(fixture.imds().startRequests()).as("nothing sent after the event started").hasSize(1);
            assertThat(approvals(agent, "no-longer-scheduled")).isEqualTo(1);
        }
    }

    @Test
    void actionMetricsExistFromTheStartAndOutcomeLinesNameTheActionAndTheIncarnation() throws Exception {
        fixture.imds().serve(Docs.document(1));
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s");
             InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.action.prepare.command", "true")
                     .with("bridge.action.recover.command", "true").start()) {
            MeterRegistry registry = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
            for (String action : new String[] {"prepare", "recover"}) {
                for (String outcome : new String[] {"succeeded", "failed", "timed-out"}) {
                    assertThat(Search.in(registry).name("bridge.actions").tag("action", action).tag("outcome", outcome)
                            .timer()).as(action + " " + outcome).isNotNull().satisfies(t -> assertThat(t.count()).isZero());
                }
            }
            for (String outcome : new String[] {"approved-after-prepare", "withheld-after-prepare", "withheld-other-vms",
                    "identity-unknown", "after-prepare-failed", "after-prepare-given-up"}) {
                assertThat(approvals(agent, outcome)).as(outcome).isZero();
            }

            fixture.imds().serve(Docs.document(7, Docs.scheduled(EVENT, "Freeze", NOT_BEFORE, "vm-under-test")));
            await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(EVENT).contains("ActionSucceeded"));
            fixture.imds().serve(Docs.document(8));
            await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(EVENT).stream()
                    .filter("ActionSucceeded"::equals).count() == 2);

            assertThat(log.lines()).anyMatch(l -> l.contains("ActionSucceeded prepare Freeze " + EVENT + " (incarnation 7,"))
                    .anyMatch(l -> l.contains("ActionSucceeded recover Freeze " + EVENT + " (incarnation 8,"))
                    .anyMatch(l -> l.contains("The recover command for " + EVENT + " (incarnation 8) succeeded"));
        }
    }
}
