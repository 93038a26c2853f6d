package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("faults-secret")
            .with("bridge.imds.timeout", "1000")
            .with("bridge.imds.max-backoff", "1000");

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
             InProcessAgent agent = fixture.start()) {
            for (int incarnation = 2; incarnation <= 4; incarnation++) {
                fixture.imds().serve(Docs.document(incarnation, oddEvent, Docs.scheduled(EVENT + incarnation, "Reboot", "", "vm")));
                int served = fixture.imds().documentsServed();
                await().atMost(Duration.ofSeconds(10)).until(() -> fixture.imds().documentsServed() >= served + 2);
            }
            fixture.imds().serve(Docs.document(5));
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.imds().documentsServed() >= served + 2);
            fixture.imds().serve(Docs.document(6, oddEvent));
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.imds().documentsServed() >= served + 4);
            List<String> warnings = log.lines().stream().filter(l -> l.startsWith("WARN") && l.contains(odd)).toList();
            assertThat(warnings).as("once while listed, once more when it came back").hasSize(2);
            assertThat(warnings.get(0)).contains("Resources is a string, not an array: taken as no resources",
                    "EventStatus 'Postponed' is neither Scheduled nor Started");
            assertThat(log.lines()).filteredOn(l -> l.startsWith("WARN") && l.contains("unexpected shape")).hasSize(2);
        }
    }

    @Test
    void everyFaultChangesNothingAndRecoveryInventsNothing() throws Exception {
        fixture.imds().serve(DOC_SCHEDULED);
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
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
                int faultsBefore = fixture.imds().faultsServed();
                fault.accept(fixture.imds());
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().faultsServed() >= faultsBefore + 2);
                await().atMost(Duration.ofSeconds(20)).until(() -> backoff.consecutiveFailures() >= 2);
                int served = fixture.imds().documentsServed();
                fixture.imds().recover();
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 2);
                assertThat(fixture.webhook().delivered()).as("after fault recovery").hasSize(1);
            }

            assertThat(fixture.webhook().transitionsOf(EVENT)).containsExactly("Scheduled");
            assertThat(fixture.imds().requestsWithoutMetadataHeader()).isEmpty();

            fixture.imds().serve(Docs.document(3));
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 2);
            assertThat(fixture.webhook().transitionsOf(EVENT)).containsExactly("Scheduled", "Cancelled");
        }
    }

    @Test
    void aFailedPollIsOneRequestNeverRepeatedBehindTheAgentsBack() throws Exception {
        fixture.imds().serve(DOC_SCHEDULED);
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            List<Consumer<ScriptedImds>> faults = List.of(
                    i -> i.failWith(503, null), i -> i.failWith(429, "1"), ScriptedImds::dropConnections);
            for (Consumer<ScriptedImds> fault : faults) {
                int requestsBefore = fixture.imds().polls();
                fault.accept(fixture.imds());
                await().atMost(Duration.ofSeconds(30)).until(() -> backoff.consecutiveFailures() >= 3);
                int failures = backoff.consecutiveFailures();
                int requests = fixture.imds().polls() - requestsBefore;
                // IMDS allows 5 requests/s: an HTTP client retrying on its own would double them (and hide failures).
                // One either side: a poll under way when the fault began or when the figures were read.
                assertThat(requests).as("requests to IMDS for %d failed polls", failures).isBetween(failures - 1, failures + 1);
                fixture.imds().recover();
                await().atMost(Duration.ofSeconds(20)).until(() -> backoff.consecutiveFailures() == 0);
            }
            assertThat(fixture.webhook().transitionsOf(EVENT)).containsExactly("Scheduled");
        }
    }

    @Test
    void aHungPollTimesOutAsATimeoutAndIsNotADocument() throws Exception {
        fixture.imds().serve(DOC_SCHEDULED);
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            fixture.imds().hangFor(Duration.ofSeconds(8));
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> "timeout".equals(backoff.lastFailureKind()));
            fixture.imds().recover();
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 2);
            assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::transition).containsExactly("Scheduled");
        }
    }

    @Test
    void theFirstCallMayTakeLongerThanTheNormalTimeout() throws Exception {
        fixture.imds().serve(DOC_SCHEDULED);
        fixture.imds().delayFirstAnswer(Duration.ofSeconds(3));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            assertThat(agent.bean("pollBackoff", PollBackoff.class).lastFailureKind())
                    .as("the slow first answer was accepted, not timed out").isEqualTo("none");
            assertThat(fixture.imds().polls()).as("the first, slow poll was the one that delivered").isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void anImdsThatFailsFromTheStartReportsNothingUntilItAnswers() throws Exception {
        fixture.imds().failWith(500, null);
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().faultsServed() >= 3);
            assertThat(fixture.webhook().requests()).isEmpty();
            fixture.imds().serve(DOC_SCHEDULED);
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().delivered().size() == 1);
            assertThat(fixture.webhook().transitionsOf(EVENT)).containsExactly("Scheduled");
        }
    }
}
