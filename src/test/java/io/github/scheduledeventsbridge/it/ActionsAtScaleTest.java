package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.IntStream;

import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A thousand events at once with a prepare command: writing the actions down costs the poll thread one append, so
 * polling goes on and the transitions reach the webhook within seconds (not after a minute of journal rewrites),
 * while the thousand prepares run beside, once each.
 */
class ActionsAtScaleTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static final int EVENTS = 1000;

    @TempDir
    Path work;

    private static String id(int i) {
        return String.format("5CA1E000-0000-0000-0000-%012d", i);
    }

    @Test
    void aThousandEventDocumentWithAPrepareCommandDelaysNeitherPollingNorTheWebhook() throws Exception {
        Path runs = work.resolve("runs");
        String[] events = IntStream.range(0, EVENTS)
                .mapToObj(i -> Docs.scheduled(id(i), "Freeze", NOT_BEFORE, "vm-under-test")).toArray(String[]::new);
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(1));
            try (InProcessAgent agent = fixture.postingTo(webhook.url())
                    .with("bridge.action.prepare.command", "echo \"$SEB_EVENT_ID\" >> " + runs).start()) {
                TransitionJournal journal = agent.bean("journal", TransitionJournal.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().documentsServed() >= 3);

                fixture.imds().serve(Docs.document(2, events));
                long since = System.nanoTime();
                await().atMost(Duration.ofSeconds(60)).until(() -> journal.lastDocument().incarnation() == 2);
                int served = fixture.imds().documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> fixture.imds().documentsServed() >= served + 3);
                Duration polling = Duration.ofNanos(System.nanoTime() - since);
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().stream()
                        .filter(r -> r.transition().equals("Scheduled")).count() == EVENTS);
                Duration delivered = Duration.ofNanos(System.nanoTime() - since);

                // Before: ~57 s without a poll and the first webhook after ~72 s. Order of magnitude, not a benchmark:
                // bounds that still tell those apart, with room for a machine busy with other test JVMs.
                assertThat(polling).as("polling went on").isLessThan(Duration.ofSeconds(40));
                assertThat(delivered).as("every Scheduled delivered").isLessThan(Duration.ofSeconds(55));

                await().atMost(Duration.ofSeconds(240)).until(() -> webhook.delivered().stream()
                        .filter(r -> r.transition().equals("ActionSucceeded")).count() == EVENTS);
            }
            assertThat(Files.readAllLines(runs)).hasSize(EVENTS).doesNotHaveDuplicates();
        }
    }
}
