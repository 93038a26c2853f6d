package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A webhook target is sent several messages at a time (bridge.webhook.concurrency), each about another event:
 * every transition still arrives exactly once, and each event's transitions in the order they happened, also
 * when one of them has to be retried.
 */
class PerEventOrderTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static String id(int i) {
        return String.format("00000000-0000-0000-0000-%012d", i);
    }

    private static String document(long incarnation, int count, String status) {
        return Docs.document(incarnation, IntStream.range(0, count)
                .mapToObj(i -> Docs.event(id(i), status, "Reboot", status.equals("Scheduled") ? NOT_BEFORE : "", "vm-" + i))
                .toArray(String[]::new));
    }

    /** The next document once the last one is recorded, long before its transitions are delivered. */
    private void serveOnceRecorded(TransitionJournal journal, long recorded, String next) {
        await().atMost(Duration.ofSeconds(60)).until(() -> journal.lastDocument().incarnation() == recorded);
        fixture.imds().serve(next);
    }

    @Test
    void threeHundredEventsScheduledStartedAndCompletedInQuickSuccessionArriveOnceEachInOrderPerEvent() throws Exception {
        int count = 300;
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            // Every fifth event's Scheduled is refused once (503): its lane waits for the retry, while the Started
            // of the same event is already queued behind it and other lanes go on.
            Set<String> refusedOnce = ConcurrentHashMap.newKeySet();
            webhook.script(json -> {
                String eventId = json.path("data").path("eventId").asText();
                boolean first = json.path("data").path("transition").asText().equals("Scheduled")
                        && eventId.endsWith("0") && refusedOnce.add(eventId);
                return WebhookReceiver.Answer.of(first ? 503 : 200);
            });
            fixture.imds().serve(document(2, count, "Scheduled"));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.delivery.initial-backoff", "1000").start()) {
                TransitionJournal journal = agent.bean("journal", TransitionJournal.class);
                serveOnceRecorded(journal, 2, document(3, count, "Started"));
                serveOnceRecorded(journal, 3, Docs.document(4));
                await().atMost(Duration.ofSeconds(120)).until(() -> webhook.delivered().size() >= 3 * count);
            }
            assertThat(webhook.delivered()).hasSize(3 * count);
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates();
            assertThat(webhook.requests()).allMatch(WebhookReceiver.Request::signatureValid);
            assertThat(webhook.failedAttempts()).hasSize(count / 10);
            for (int i = 0; i < count; i++) {
                assertThat(webhook.transitionsOf(id(i))).as("transitions of " + id(i))
                        .containsExactly("Scheduled", "Started", "Completed");
            }
        }
    }

    @Test
    void aSlowTargetIsSentUpToConcurrencyMessagesAtATime() throws Exception {
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            // 20 messages per lane, 100 ms each: whichever lane starts last still overlaps the others for long.
            webhook.answerAfter(Duration.ofMillis(100));
            fixture.imds().serve(document(2, 60, "Scheduled"));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.webhook.concurrency", "3").start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() == 60);
            }
            assertThat(webhook.mostAtOnce()).isEqualTo(3);
        }
    }

    @Test
    void withAConcurrencyOfOneMessagesGoOneAtATimeInTheOrderRecorded() throws Exception {
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerAfter(Duration.ofMillis(20));
            fixture.imds().serve(document(2, 24, "Scheduled"));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.webhook.concurrency", "1").start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() == 24);
            }
            assertThat(webhook.mostAtOnce()).isEqualTo(1);
            List<String> inDocumentOrder = IntStream.range(0, 24).mapToObj(PerEventOrderTest::id).toList();
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId).containsExactlyElementsOf(inDocumentOrder);
        }
    }
}
