package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.PollBackoff;
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
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every IMDS fault, over real sockets: while IMDS fails, nothing is emitted and nothing is forgotten;
 * after it recovers, only real changes are reported.
 */
class ImdsFaultsTest {

    private static final String EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String DOC_SCHEDULED = Docs.document(2,
            Docs.scheduled(EVENT, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0", "WestNO_1"));

    @TempDir
    Path state;
    private ScriptedImds imds;
    private WebhookReceiver webhook;

    @BeforeEach
    void peers() throws Exception {
        imds = new ScriptedImds();
        webhook = WebhookReceiver.start("faults-secret");
    }

    @AfterEach
    void stopPeers() {
        imds.close();
        webhook.close();
    }

    private InProcessAgent agent() throws Exception {
        return InProcessAgent.builder(state).imds(imds)
                .with("bridge.imds.timeout", "1000")
                .with("bridge.imds.max-backoff", "1000")
                .with("bridge.webhook.urls", webhook.url())
                .with("bridge.webhook.secret", "faults-secret")
                .start();
    }

    /**
     * Fields of the wrong shape are taken leniently (the document is complete) but not silently: one WARN per event,
     * however often the document is read again, and again once such an event comes back after it was gone.
     */
    @Test
    void fieldsOfTheWrongShapeAreSaidOncePerEvent() throws Exception {
        String odd = "ODDODDOD-0000-0000-0000-000000000001";
        String oddEvent = Docs.scheduled(odd, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")
                .replace("\"Resources\":[\"vm\"]", "\"Resources\":\"vm\"")
                .replace("\"EventStatus\":\"Scheduled\"", "\"EventStatus\":\"Postponed\"");
        try (io.github.scheduledeventsbridge.testing.LogCapture log = io.github.scheduledeventsbridge.testing.LogCapture.install();
             InProcessAgent agent = agent()) {
            for (int incarnation = 2; incarnation <= 4; incarnation++) {
                imds.serve(Docs.document(incarnation, oddEvent, Docs.scheduled(EVENT + incarnation, "Reboot", "", "vm")));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(10)).until(() -> imds.documentsServed() >= served + 2);
            }
            imds.serve(Docs.document(5));
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(10)).until(() -> imds.documentsServed() >= served + 2);
            imds.serve(Docs.document(6, oddEvent));
            await().atMost(Duration.ofSeconds(10)).until(() -> imds.documentsServed() >= served + 4);
            List<String> warnings = log.lines().stream().filter(l -> l.startsWith("WARN") && l.contains(odd)).toList();
            assertThat(warnings).as("once while listed, once more when it came back").hasSize(2);
            assertThat(warnings.get(0)).contains("Resources is a string, not an array: taken as no resources",
                    "EventStatus 'Postponed' is neither Scheduled nor Started");
            assertThat(log.lines()).filteredOn(l -> l.startsWith("WARN") && l.contains("unexpected shape")).hasSize(2);
        }
    }

    @Test
    void everyFaultChangesNothingAndRecoveryInventsNothing() throws Exception {
        imds.serve(DOC_SCHEDULED);
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);

            List<Consumer<ScriptedImds>> faults = List.of(
                    i -> i.failWith(500, null),
                    i -> i.failWith(503, null),
                    i -> i.failWith(429, "1"),
                    i -> i.failWith(410, null),
                    i -> i.failWith(404, null),
                    ScriptedImds::serveTruncated,
                    ScriptedImds::serveEmpty,
                    i -> i.hangFor(Duration.ofSeconds(3)));
            for (Consumer<ScriptedImds> fault : faults) {
                int faultsBefore = imds.faultsServed();
                fault.accept(imds);
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.faultsServed() >= faultsBefore + 2);
                await().atMost(Duration.ofSeconds(20)).until(() -> backoff.consecutiveFailures() >= 2);
                int served = imds.documentsServed();
                imds.recover();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 2);
                assertThat(webhook.delivered()).as("after fault recovery").hasSize(1);
            }

            assertThat(webhook.transitionsOf(EVENT)).containsExactly("Scheduled");
            assertThat(imds.requestsWithoutMetadataHeader()).isEmpty();

            imds.serve(Docs.document(3));
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
            assertThat(webhook.transitionsOf(EVENT)).containsExactly("Scheduled", "Cancelled");
        }
    }

    @Test
    void aFailedPollIsOneRequestNeverRepeatedBehindTheAgentsBack() throws Exception {
        imds.serve(DOC_SCHEDULED);
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            List<Consumer<ScriptedImds>> faults = List.of(
                    i -> i.failWith(503, null), i -> i.failWith(429, "1"), ScriptedImds::dropConnections);
            for (Consumer<ScriptedImds> fault : faults) {
                int requestsBefore = imds.polls();
                fault.accept(imds);
                await().atMost(Duration.ofSeconds(30)).until(() -> backoff.consecutiveFailures() >= 3);
                int failures = backoff.consecutiveFailures();
                int requests = imds.polls() - requestsBefore;
                // IMDS allows 5 requests/s: an HTTP client retrying on its own would double them (and hide failures).
                // One either side: a poll under way when the fault began or when the figures were read.
                assertThat(requests).as("requests to IMDS for %d failed polls", failures).isBetween(failures - 1, failures + 1);
                imds.recover();
                await().atMost(Duration.ofSeconds(20)).until(() -> backoff.consecutiveFailures() == 0);
            }
            assertThat(webhook.transitionsOf(EVENT)).containsExactly("Scheduled");
        }
    }

    @Test
    void aHungPollTimesOutAsATimeoutAndIsNotADocument() throws Exception {
        imds.serve(DOC_SCHEDULED);
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            imds.hangFor(Duration.ofSeconds(8));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "timeout".equals(backoff.lastFailureKind()));
            imds.recover();
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 2);
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::transition).containsExactly("Scheduled");
        }
    }

    @Test
    void theFirstCallMayTakeLongerThanTheNormalTimeout() throws Exception {
        imds.serve(DOC_SCHEDULED);
        imds.delayFirstAnswer(Duration.ofSeconds(3));
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            assertThat(agent.bean("pollBackoff", PollBackoff.class).lastFailureKind())
                    .as("the slow first answer was accepted, not timed out").isEqualTo("none");
            assertThat(imds.polls()).as("the first, slow poll was the one that delivered").isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void anImdsThatFailsFromTheStartReportsNothingUntilItAnswers() throws Exception {
        imds.failWith(500, null);
        try (InProcessAgent agent = agent()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.faultsServed() >= 3);
            assertThat(webhook.requests()).isEmpty();
            imds.serve(DOC_SCHEDULED);
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            assertThat(webhook.transitionsOf(EVENT)).containsExactly("Scheduled");
        }
    }
}
