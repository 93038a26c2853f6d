package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.approval.ApprovalOrigin;
import io.github.scheduledeventsbridge.approval.ApprovalOutcome;
import io.github.scheduledeventsbridge.approval.VerifiedApproval;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code direct:approve}, the way in for an approval another channel has verified (here a queue's, without the
 * remote API's secret): every outcome, typed, with the real IMDS POST behind it.
 */
class ApprovalEntryPointTest {

    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String STARTED = "5DD55B64-45AD-49D3-BBC9-F57D4EA97BD7";

    @TempDir
    Path state;

    private static ApprovalOutcome approve(ProducerTemplate template, String body, String messageId) {
        return template.requestBody("direct:approve", new VerifiedApproval(body.getBytes(StandardCharsets.UTF_8),
                new ApprovalOrigin.Queue("approvals", messageId)), ApprovalOutcome.class);
    }

    private static double counted(InProcessAgent agent, String outcome) {
        Counter counter = agent.context().getRegistry().findSingleByType(MeterRegistry.class)
                .find("bridge.approvals").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aVerifiedApprovalIsApprovedRefusedForGoodOrFailedForNow() throws Exception {
        try (LogCapture log = LogCapture.install(); ScriptedImds imds = new ScriptedImds();
             WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(7,
                    Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0"),
                    Docs.started(STARTED, "Reboot", "WestNO_0")));
            try (InProcessAgent agent = InProcessAgent.builder(state).imds(imds)
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
                ProducerTemplate template = agent.context().createProducerTemplate();

                assertThat(approve(template, "{\"EventId\": ", "m0")).isEqualTo(
                        new ApprovalOutcome.Refused(400, "body is not JSON", List.of()));
                ApprovalOutcome unknown = approve(template, "{\"EventId\":\"00000000-0000-0000-0000-000000000000\"}", "m1");
                assertThat(unknown).isInstanceOf(ApprovalOutcome.Refused.class);
                assertThat(((ApprovalOutcome.Refused) unknown).status()).isEqualTo(404);
                ApprovalOutcome started = approve(template, "{\"EventId\":\"" + STARTED + "\"}", "m2");
                assertThat(((ApprovalOutcome.Refused) started).reason()).contains("not Scheduled");

                imds.answerStartRequestsWith(500);
                ApprovalOutcome failed = approve(template, "{\"EventId\":\"" + SCHEDULED + "\"}", "m3");
                assertThat(failed).isInstanceOf(ApprovalOutcome.Failed.class);
                assertThat(((ApprovalOutcome.Failed) failed).reason()).isEqualTo("IMDS refused the approval (HTTP 500)");
                assertThat(webhook.transitionsOf(SCHEDULED)).doesNotContain("Approved");

                imds.answerStartRequestsWith(200);
                ApprovalOutcome approved = approve(template, "{\"EventId\":\"" + SCHEDULED.toLowerCase() + "\"}", "m3");
                assertThat(approved).isInstanceOf(ApprovalOutcome.Approved.class);
                assertThat(((ApprovalOutcome.Approved) approved).approved()).containsExactly(SCHEDULED);
                assertThat(((ApprovalOutcome.Approved) approved).recorded()).isTrue();
                assertThat(imds.startRequests()).hasSize(2);
                assertThat(imds.startRequests().get(1).body()).isEqualTo("{\"StartRequests\":[{\"EventId\":\"" + SCHEDULED + "\"}]}");
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(SCHEDULED).contains("Approved"));
                WebhookReceiver.Request transition = webhook.delivered().stream()
                        .filter(r -> r.transition().equals("Approved")).findFirst().orElseThrow();
                assertThat(transition.json().path("data").path("approval").path("by").asText()).isEqualTo("remote");

                // The same message again (the queue gave it back after a lost delete): nothing reaches IMDS twice.
                ApprovalOutcome again = approve(template, "{\"EventId\":\"" + SCHEDULED + "\"}", "m3");
                assertThat(again).isEqualTo(new ApprovalOutcome.Refused(409,
                        "already approved by this agent: " + SCHEDULED, List.of(SCHEDULED)));
                assertThat(imds.startRequests()).hasSize(2);

                ApprovalOutcome imdsShape = approve(template, "{\"StartRequests\":[{\"EventId\":\"" + STARTED + "\"}]}", "m4");
                assertThat(imdsShape).as("refused before IMDS is asked").isInstanceOf(ApprovalOutcome.Refused.class);
                assertThat(imds.startRequests()).hasSize(2);

                assertThat(counted(agent, "queue-approved")).isEqualTo(1.0);
                assertThat(counted(agent, "queue-refused")).isEqualTo(5.0);
                assertThat(counted(agent, "queue-failed")).isEqualTo(1.0);
                assertThat(counted(agent, "approved")).as("the remote API's").isZero();
            }
            assertThat(log.lines()).contains("INFO Approval from queue approvals message m3 for [" + SCHEDULED
                    + "]: approved, IMDS accepted");
            assertThat(log.lines()).anyMatch(l -> l.startsWith("WARN Approval request from queue approvals message m3 for ["
                    + SCHEDULED + "] refused with 502: IMDS refused the approval (HTTP 500)"));
        }
    }

    @Test
    void anUnreachableImdsIsAFailureForNow() throws Exception {
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(7, Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0")));
            try (InProcessAgent agent = InProcessAgent.builder(state).imds(imds).start()) {
                TransitionJournal journal = agent.bean("journal", TransitionJournal.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> journal.lastDocument().find(SCHEDULED).isPresent());
                imds.close();
                ApprovalOutcome outcome = approve(agent.context().createProducerTemplate(),
                        "{\"EventId\":\"" + SCHEDULED + "\"}", "m1");
                assertThat(outcome).isInstanceOf(ApprovalOutcome.Failed.class);
                assertThat(((ApprovalOutcome.Failed) outcome).reason()).isEqualTo("IMDS could not be reached");
                assertThat(((ApprovalOutcome.Failed) outcome).request().eventIds()).containsExactly(SCHEDULED);
            }
        }
    }
}
