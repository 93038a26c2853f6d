package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A spool document whose last message is delivered while the disk is read-only (the agent's storage goes through
 * testing/FaultyFileSystem, which refuses writes and deletes there, as root too): the message no longer waits, and
 * the file goes once the disk can be written again, in the same run.
 */
class SpoolDeleteRetryTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s").faultyDisk();

    @Test
    void aDocumentDeliveredWhileItsFileCannotBeDeletedNoLongerWaitsAndIsDeletedOnceItCanBe() throws Exception {
        List<String> ids = IntStream.range(0, 8).mapToObj(i -> String.format("DDDDDDDD-6000-0000-0000-%012d", i)).toList();
        String last = ids.get(ids.size() - 1);
        AtomicReference<Path> document = new AtomicReference<>();
        Path spoolRoot = fixture.state().resolve("spool");
        try (WebhookReceiver webhook = WebhookReceiver.start("s"); LogCapture log = LogCapture.install()) {
            // Just before the last message is answered 200: the spool's disk turns read-only.
            webhook.script(json -> {
                if (json.path("data").path("eventId").asText().equals(last)) {
                    document.set(spoolDocument());
                    fixture.disk().refuseWritesUnder(spoolRoot, "Read-only file system");
                }
                return WebhookReceiver.Answer.of(200);
            });
            fixture.imds().serve(Docs.document(2, ids.stream().map(Docs::scheduled).toArray(String[]::new)));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.webhook.concurrency", "1").start()) {
                Spool spool = agent.bean("spool", Spool.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == ids.size());

                await().atMost(Duration.ofSeconds(10)).until(() -> spool.totalDepth() == 0);
                // The depth falls just before the waiting time is cleared: wait for both.
                await().atMost(Duration.ofSeconds(5)).until(() -> spool.depths().keySet().stream()
                        .allMatch(sink -> spool.waitingSince(sink) == null));
                assertThat(Files.exists(document.get())).as("not deleted yet: the disk still refuses").isTrue();

                fixture.disk().allowWrites();
                await().atMost(Duration.ofSeconds(20)).until(() -> !Files.exists(document.get()));
                int served = fixture.imds().documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
            }
            assertThat(webhook.requests()).as("each sent once: nothing retries a delivered message").hasSize(ids.size());
            assertThat(log.text()).contains("left the spool (its messages were delivered) but cannot be deleted")
                    .doesNotContain("is failing", "Retrying");
        }
    }

    private Path spoolDocument() {
        try (Stream<Path> files = Files.walk(fixture.state().resolve("spool"), 2)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsonl")).findFirst().orElseThrow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
