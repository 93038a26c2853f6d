package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Request;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10: a webhook's spool survives a token rotation; spools no configured sink owns are reported and kept.
 */
class SpoolIdentityTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    @Test
    void rotatingAWebhookTokenKeepsTheMessagesWaitingForIt() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start("s")) {
            receiver.answerWith(503);
            fixture.imds().serve(Docs.document(2, scheduled(A), scheduled(B)));
            try (InProcessAgent before = fixture.postingTo(receiver.url("/p?code=old")).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.failedAttempts().size() >= 2);
            }
            receiver.answerWith(200);
            try (InProcessAgent after = fixture.postingTo(receiver.url("/p?code=new")).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 2);
            }
            // Two events, each on its lane (bridge.webhook.concurrency): either may arrive first.
            assertThat(receiver.delivered()).extracting(Request::eventId).containsExactlyInAnyOrder(A, B);
            assertThat(receiver.delivered()).extracting(Request::rawQuery).containsOnly("code=new");
        }
    }

    @Test
    void aSpoolNoConfiguredSinkOwnsIsReportedAtStartAndKept() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start("s")) {
            receiver.answerWith(503);
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent before = fixture.postingTo(receiver.url("/old-target")).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.failedAttempts().size() >= 1);
            }
            Path orphan;
            try (Stream<Path> dirs = Files.list(fixture.state().resolve("spool"))) {
                orphan = dirs.filter(d -> d.getFileName().toString().startsWith("webhook-")).findFirst().orElseThrow();
            }
            receiver.answerWith(200);
            try (LogCapture log = LogCapture.install();
                 InProcessAgent after = fixture.postingTo(receiver.url("/new-target")).start()) {
                assertThat(log.lines()).anySatisfy(line -> assertThat(line).startsWith("WARN")
                        .contains(orphan.toString(), "1 undelivered message(s)"));
                MeterRegistry meters = after.context().getRegistry().findSingleByType(MeterRegistry.class);
                assertThat(meters.get("bridge.spool.orphaned").tag("directory", orphan.getFileName().toString())
                        .gauge().value()).isEqualTo(1.0);
            }
            try (Stream<Path> files = Files.list(orphan)) {
                assertThat(files.filter(f -> f.toString().endsWith(".json"))).as("kept, never deleted").hasSize(1);
            }
            assertThat(receiver.delivered()).isEmpty();
        }
    }
}
