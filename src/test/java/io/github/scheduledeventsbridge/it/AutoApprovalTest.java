package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Auto-approval over real sockets: the policy, the leader rule and dry-run mode. */
class AutoApprovalTest {

    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";
    private static final String USER_REBOOT = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final String PLATFORM_REBOOT = "BBBBBBBB-0000-0000-0000-00000000000B";
    private static final String NOT_LEADER = "CCCCCCCC-0000-0000-0000-00000000000C";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    private static String user(String event) {
        return event.replace("\"EventSource\":\"Platform\"", "\"EventSource\":\"User\"");
    }

    private String document() {
        // The scripted IMDS names this VM vm-under-test.
        return Docs.document(2,
                user(Docs.scheduled(USER_REBOOT, "Reboot", NOT_BEFORE, "vm-under-test", "vm-other")),
                Docs.scheduled(PLATFORM_REBOOT, "Reboot", NOT_BEFORE, "vm-under-test"),
                user(Docs.scheduled(NOT_LEADER, "Reboot", NOT_BEFORE, "vm-other", "vm-under-test")));
    }

    @Test
    void userInitiatedEventsAreApprovedOnceByTheLeaderOnly() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(document());
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.approval.auto.user-initiated", "true")
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(USER_REBOOT).contains("Approved"));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
            }
            assertThat(imds.startRequests()).hasSize(1);
            assertThat(imds.startRequests().get(0).body()).isEqualTo("{\"StartRequests\":[{\"EventId\":\"" + USER_REBOOT + "\"}]}");
            assertThat(imds.startRequests().get(0).metadataHeader()).isEqualTo("true");
            var approved = webhook.delivered().stream().filter(r -> r.transition().equals("Approved")).toList();
            assertThat(approved).hasSize(1);
            assertThat(approved.get(0).json().path("data").path("approval").path("by").asText()).isEqualTo("policy");
            assertThat(approved.get(0).json().path("data").path("approval").path("rule").asText()).isEqualTo("user-initiated");
            assertThat(approved.get(0).json().path("data").path("approval").path("dryRun").asBoolean()).isFalse();
            assertThat(approved.get(0).json().path("type").asText()).isEqualTo("io.github.scheduledeventsbridge.transition.Approved");
            assertThat(webhook.transitionsOf(PLATFORM_REBOOT)).containsExactly("Scheduled");
            assertThat(webhook.transitionsOf(NOT_LEADER)).containsExactly("Scheduled");
        }
    }

    @Test
    void theApprovedMessageLeavesWithThePollThatApproved() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(document());
            // One poll a minute: an Approved that waited for the next poll would not arrive within the test.
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.imds.poll-interval", "60000")
                    .with("bridge.approval.auto.user-initiated", "true")
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(USER_REBOOT).contains("Approved"));
                assertThat(imds.documentsServed()).as("delivered before a second poll").isEqualTo(1);
                assertThat(webhook.transitionsOf(USER_REBOOT)).containsExactly("Scheduled", "Approved");
            }
        }
    }

    /** The value of {@code bridge_approvals_total{outcome=…}} in a scrape, or null when it is not there. */
    private static Double approvals(InProcessAgent agent, String outcome) throws Exception {
        return OperatorFirstHourTest.get(agent, "/metrics").lines()
                .filter(l -> l.startsWith("bridge_approvals_total{") && l.contains("outcome=\"" + outcome + "\""))
                .map(l -> Double.valueOf(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(null);
    }

    private static long linesWith(LogCapture log, String... parts) {
        return log.lines().stream().filter(l -> java.util.Arrays.stream(parts).allMatch(l::contains)).count();
    }

    @Test
    void everyWithheldApprovalIsLoggedOnceWithItsReasonAndCounted() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(1));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.approval.auto.user-initiated", "true").start()) {
                for (String outcome : List.of("withheld-not-covered", "withheld-not-leader", "withheld-identity-unknown")) {
                    assertThat(approvals(agent, outcome)).as(outcome + " present from the start").isEqualTo(0.0);
                }
                imds.serve(document());
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.startRequests().size() == 1);
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);

                assertThat(approvals(agent, "withheld-not-covered")).isEqualTo(1.0);
                assertThat(approvals(agent, "withheld-not-leader")).isEqualTo(1.0);
                assertThat(approvals(agent, "withheld-identity-unknown")).isEqualTo(0.0);
            }
            assertThat(linesWith(log, "Auto-approval withheld", PLATFORM_REBOOT, "no rule covers")).isEqualTo(1);
            assertThat(linesWith(log, "Auto-approval withheld", NOT_LEADER, "not the leader", "vm-other")).isEqualTo(1);
            assertThat(linesWith(log, "Auto-approval withheld", USER_REBOOT)).isZero();
        }
    }

    @Test
    void withTheIdentityUnknownEachWithheldApprovalIsSaidEvenWithActionsAndDrainOn() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install()) {
            imds.answerInstanceMetadataWith(503);
            imds.serve(document());
            // Actions and the drain signal meet the unknown identity first and say so for themselves.
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.approval.auto.user-initiated", "true")
                    .with("bridge.action.prepare.command", "true")
                    .with("bridge.drain.port", "0").with("bridge.drain.host", "127.0.0.1").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> approvals(agent, "withheld-identity-unknown") == 2.0);
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
                assertThat(approvals(agent, "withheld-identity-unknown")).isEqualTo(2.0);
            }
            assertThat(imds.startRequests()).isEmpty();
            for (String id : List.of(USER_REBOOT, NOT_LEADER)) {
                assertThat(linesWith(log, "Auto-approval withheld", id, "not known")).as(id).isEqualTo(1);
            }
        }
    }

    @Test
    void dryRunSendsNothingButSaysWhatItWouldApprove() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(document());
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.approval.auto.user-initiated", "true")
                    .with("bridge.approval.auto.event-types", "Reboot")
                    .with("bridge.approval.auto.dry-run", "true")
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(USER_REBOOT).contains("Approved")
                        && webhook.transitionsOf(PLATFORM_REBOOT).contains("Approved"));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
            }
            assertThat(imds.startRequests()).as("dry run sends nothing").isEmpty();
            var approved = webhook.delivered().stream().filter(r -> r.transition().equals("Approved")).toList();
            assertThat(approved).hasSize(2).allMatch(r -> r.json().path("data").path("approval").path("dryRun").asBoolean());
            assertThat(approved).allMatch(r -> r.json().path("type").asText().equals("io.github.scheduledeventsbridge.dryrun.Approved"));
            assertThat(log.lines()).anyMatch(l -> l.startsWith("INFO DRY RUN: would approve Reboot " + USER_REBOOT))
                    .noneMatch(l -> l.startsWith("INFO Approved "));
            assertThat(webhook.transitionsOf(NOT_LEADER)).containsExactly("Scheduled");
        }
    }
}
