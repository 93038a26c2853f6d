package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A graceful stop (SIGTERM, systemctl restart, an upgrade) while a spool document is being sent: the next start
 * sends only its messages that were not delivered, never the delivered ones again, and loses none.
 */
class StopMidDocumentTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s").faultyDisk();

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> IDS = IntStream.range(0, 50)
            .mapToObj(i -> String.format("5T0P0000-0000-0000-0000-%012d", i)).toList();
    private static final int ANSWERED = 20;

    @AfterEach
    void releaseWebhook() {
        fixture.webhook().release();
    }

    private InProcessAgent startAgent() throws Exception {
        // A receiver that does not answer holds the stop until the graceful shutdown's timeout, then until the request's
        // own timeout (the packaged defaults are 10 s and 15 s).
        return fixture.builder().with("camel.main.shutdown-timeout", "2")
                .with("camel.component.http.so-timeout", "4000").with("camel.component.http.response-timeout", "4000")
                .start();
    }

    /**
     * 50 new events (one spool document); the receiver answers 20 and then stops answering, so its lanes are each
     * waiting for an answer when the agent stops. Returns the document.
     */
    private Path stoppedWithRequestsInFlight(Runnable beforeStop) throws Exception {
        fixture.imds().serve(Docs.document(2, IDS.stream().map(id -> Docs.scheduled(id, "Reboot", NOT_BEFORE, "vm-1"))
                .toArray(String[]::new)));
        fixture.webhook().holdAfter(ANSWERED);
        try (InProcessAgent first = startAgent()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() == ANSWERED && fixture.webhook().held() > 0);
            beforeStop.run();
        }
        fixture.webhook().release();
        assertThat(fixture.webhook().delivered()).hasSize(ANSWERED);
        List<Path> documents = documents();
        assertThat(documents).as("the rest waits in the spool document").hasSize(1);
        return documents.get(0);
    }

    @Test
    void stoppedWhileSendingADocumentThenRestartedSendsOnlyWhatWasNotDelivered() throws Exception {
        Path document = stoppedWithRequestsInFlight(() -> { });

        Set<String> answered = eventIds(fixture.webhook().delivered());
        Set<String> waiting = new TreeSet<>(IDS);
        waiting.removeAll(answered);
        assertThat(document.getFileName().toString()).as("its name (the order) is kept").matches("\\d{19}\\.jsonl");
        assertThat(idsIn(document)).as("only the undelivered ones, those in flight at the stop included, in order")
                .containsExactlyElementsOf(IDS.stream().filter(waiting::contains).toList());
        assertThat(hiddenFiles()).as("no temporary file left").isEmpty();

        // While it is stopped, every event starts: each one's Started must follow its Scheduled.
        fixture.imds().serve(Docs.document(3, IDS.stream().map(id -> Docs.started(id, "Reboot", "vm-1")).toArray(String[]::new)));
        try (InProcessAgent second = startAgent()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() >= 2 * IDS.size());
            await().atMost(Duration.ofSeconds(10)).until(() -> documents().isEmpty());
        }
        List<WebhookReceiver.Request> delivered = fixture.webhook().delivered();
        assertThat(delivered).extracting(WebhookReceiver.Request::id).as("nothing sent twice").doesNotHaveDuplicates();
        assertThat(delivered).as("nothing lost, nothing invented").hasSize(2 * IDS.size());
        for (String id : IDS) {
            assertThat(fixture.webhook().transitionsOf(id)).as(id).containsExactly("Scheduled", "Started");
        }
        assertThat(delivered.subList(ANSWERED, delivered.size())).filteredOn(r -> r.transition().equals("Scheduled"))
                .extracting(WebhookReceiver.Request::eventId).as("after the restart: exactly the undelivered ones")
                .containsExactlyInAnyOrderElementsOf(waiting);
        assertThat(delivered).allMatch(WebhookReceiver.Request::signatureValid);
    }

    /** As root a read-only mode does not stop writes: the state is kept through a file system that refuses them. */
    @Test
    void aStopThatCannotRewriteTheDocumentKeepsItWholeAndTheRestartSendsEverythingAgain() throws Exception {
        try (LogCapture log = LogCapture.install()) {
            Path document = stoppedWithRequestsInFlight(() -> fixture.disk().refuseWritesUnder(fixture.state().resolve("spool"), "Read-only file system"));
            fixture.disk().allowWrites();

            assertThat(idsIn(document)).as("kept whole").containsExactlyElementsOf(IDS);
            assertThat(log.lines()).filteredOn(line -> line.startsWith("WARN") && line.contains("spool document"))
                    .hasSize(1).allMatch(line -> line.contains(document.getFileName().toString()));
        }

        try (InProcessAgent second = startAgent()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> resentIds().size() == IDS.size());
            await().atMost(Duration.ofSeconds(10)).until(() -> documents().isEmpty());
        }
        assertThat(fixture.webhook().delivered()).as("all sent again: the answered ones twice, same ids")
                .hasSize(ANSWERED + IDS.size());
        assertThat(fixture.webhook().delivered().stream().map(WebhookReceiver.Request::id).collect(Collectors.toSet()))
                .hasSize(IDS.size());
    }

    /** From one copy of the receiver's list: it grows while the agent sends, so two reads may disagree on its size. */
    private Set<String> resentIds() {
        List<WebhookReceiver.Request> delivered = fixture.webhook().delivered();
        return eventIds(delivered.subList(ANSWERED, delivered.size()));
    }

    private static Set<String> eventIds(List<WebhookReceiver.Request> requests) {
        return requests.stream().map(WebhookReceiver.Request::eventId).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<String> idsIn(Path document) throws IOException {
        return Files.readAllLines(document).stream().filter(line -> !line.isEmpty()).map(line -> {
            try {
                return MAPPER.readTree(line).path("data").path("eventId").asText();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList();
    }

    private List<Path> documents() throws IOException {
        return spoolFiles(name -> name.endsWith(".jsonl") && !name.startsWith("."));
    }

    private List<Path> hiddenFiles() throws IOException {
        return spoolFiles(name -> name.startsWith("."));
    }

    private List<Path> spoolFiles(java.util.function.Predicate<String> name) throws IOException {
        Path spool = fixture.state().resolve("spool");
        if (!Files.exists(spool)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(spool, 2)) {
            return files.filter(f -> name.test(f.getFileName().toString())).toList();
        }
    }
}
