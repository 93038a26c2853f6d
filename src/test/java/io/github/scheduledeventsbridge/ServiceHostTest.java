package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ServiceHostThread;
import io.github.scheduledeventsbridge.testing.Docs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The agent under a Windows service host (procrun's jvm mode): {@code BridgeApplication.start} runs on the host's
 * thread until {@code BridgeApplication.stop}, called on another one, has stopped it exactly as SIGTERM does — here in
 * the middle of a spool document, whose delivered messages are then left out of it.
 */
class ServiceHostTest {

    private static final List<String> IDS = IntStream.range(0, 30)
            .mapToObj(i -> String.format("5E2V1CE0-0000-0000-0000-%012d", i)).toList();
    private static final int ANSWERED = 10;

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");
    private final Map<String, String> settings = new LinkedHashMap<>();

    @AfterEach
    void close() {
        settings.keySet().forEach(System::clearProperty);
        fixture.webhook().release();
    }

    /** The host passes settings as -D options (procrun's JvmOptions). */
    private void configure() {
        settings.putAll(fixture.builder().with("camel.main.shutdown-timeout", "2")
                .with("camel.component.http.so-timeout", "4000")
                .with("camel.component.http.response-timeout", "4000").settings());
        settings.forEach(System::setProperty);
    }

    @Test
    void theHostsStopDrainsAndRewritesTheSpoolDocumentAsSigtermDoesThenStartReturns() throws Exception {
        configure();
        fixture.imds().serve(Docs.document(2, IDS.stream().map(id -> Docs.scheduled(id, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT",
                "vm-1")).toArray(String[]::new)));
        fixture.webhook().holdAfter(ANSWERED);
        ServiceHostThread host = ServiceHostThread.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() == ANSWERED && fixture.webhook().held() > 0);

        host.stop();

        // Stop returns once the agent has stopped: the document is rewritten by then, and start returns with it.
        List<Path> documents = documents();
        assertThat(documents).hasSize(1);
        List<String> waiting = IDS.stream().filter(id -> fixture.webhook().delivered().stream()
                .noneMatch(r -> r.eventId().equals(id))).toList();
        assertThat(Files.readAllLines(documents.get(0))).as("only the messages not delivered, in order")
                .hasSize(IDS.size() - ANSWERED).allMatch(line -> waiting.stream().anyMatch(line::contains));
        Throwable failure = host.join();
        assertThat(host.isAlive()).isFalse();
        assertThat(failure).isNull();
    }

    /** What procrun's standard output keeps is the start only: the rest is in the agent's own rolled files. */
    @Test
    void theServicesLogGoesToItsOwnFilesOnceTheSettingsAreRead() throws Exception {
        settings.put("bridge.log.dir", fixture.state().resolve("logs").toString());
        configure();
        fixture.imds().serve(Docs.document(2, Docs.scheduled(IDS.get(0), "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1")));
        try {
            ServiceHostThread host = ServiceHostThread.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() == 1);
            host.stop();
            host.join();
            String log = Files.readString(fixture.state().resolve("logs").resolve("scheduled-events-bridge.log"));
            assertThat(log).contains("The log goes on here").contains("Polling " + fixture.imds().url())
                    .contains("Stop requested by the service host");
            assertThat(java.util.logging.Logger.getLogger("").getHandlers())
                    .noneMatch(h -> h instanceof io.github.scheduledeventsbridge.logging.StdoutHandler);
        } finally {
            io.github.scheduledeventsbridge.logging.BridgeLogging.configure(); // standard output again for the rest
        }
    }

    private List<Path> documents() throws IOException {
        try (Stream<Path> files = Files.walk(fixture.state().resolve("spool"), 2)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsonl")
                    && !f.getFileName().toString().startsWith(".")).toList();
        }
    }
}
