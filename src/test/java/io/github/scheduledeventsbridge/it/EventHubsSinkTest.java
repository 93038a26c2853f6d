package io.github.scheduledeventsbridge.it;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.Batch;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer.ReceivedMessage;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.camel.component.azure.eventhubs.EventHubsComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/** The agent, in-process, polling a scripted IMDS and delivering to a real AMQP 1.0 Event Hubs peer. */
@Timeout(120)
class EventHubsSinkTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String VM = "vm-under-test"; // the name ScriptedImds's instance metadata gives

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().eventHubsPeer();

    /**
     * The agent exactly as shipped, configured through properties only: the connection string, plus a fast
     * SDK retry policy (a bean declared with camel.beans.*, set on the component) so that reconnects to the
     * restarted peer take milliseconds rather than the SDK's default back-off.
     */
    private InProcessAgent.Builder agent() {
        return fixture.builder()
                .with("bridge.delivery.initial-backoff", "100")
                .with("bridge.delivery.max-backoff", "500")
                .with("camel.beans.fastRetry", "#class:com.azure.core.amqp.AmqpRetryOptions")
                .with("camel.beans.fastRetry.mode", "FIXED")
                .with("camel.beans.fastRetry.maxRetries", "1")
                .with("camel.beans.fastRetry.delay", "PT0.2S")
                .with("camel.beans.fastRetry.maxDelay", "PT0.5S")
                .with("camel.beans.fastRetry.tryTimeout", "PT3S")
                .with("camel.component.azure-eventhubs.amqp-retry-options", "#fastRetry");
    }

    private static String id(int i) {
        return String.format("00000000-0000-0000-0000-%012d", i);
    }

    private static String[] scheduled(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> Docs.scheduled(id(i), "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-" + i))
                .toArray(String[]::new);
    }

    private static String[] started(int count) {
        return IntStream.range(0, count).mapToObj(i -> Docs.started(id(i), "Reboot", "vm-" + i)).toArray(String[]::new);
    }

    private static JsonNode json(ReceivedMessage m) {
        try {
            return MAPPER.readTree(m.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String transition(ReceivedMessage m) {
        return json(m).path("data").path("transition").asText();
    }

    private static String eventId(ReceivedMessage m) {
        return json(m).path("data").path("eventId").asText();
    }

    private static String ceId(ReceivedMessage m) {
        return json(m).path("id").asText();
    }

    /**
     * A hub that takes the events and never settles them: with the agent's defaults (no SDK retry policy set) an SDK
     * try ends at bridge.delivery.attempt-timeout, so the attempt fails within seconds and the lane's own retries take
     * over, rather than after the SDK's default of four tries of a minute each.
     */
    @Test
    void aHubThatNeverSettlesIsAFailedAttemptWithinTheAttemptTimeout() throws Exception {
        fixture.eventHub().neverSettle(true);
        fixture.imds().serve(Docs.document(2, scheduled(1)));
        try (io.github.scheduledeventsbridge.testing.LogCapture log = io.github.scheduledeventsbridge.testing.LogCapture.install();
             InProcessAgent agent = fixture.start("bridge.delivery.attempt-timeout", "2000")) {
            await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("is failing"));
            assertThat(fixture.eventHub().messages()).isEmpty();
            fixture.eventHub().neverSettle(false);
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() == 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> agent.bean("spool", Spool.class).depth("eventhubs") == 0);
        }
    }

    @Test
    void aLifeCycleArrivesAsCloudEventsWithPropertiesAndTheVmAsPartitionKey() throws Exception {
        String a = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
        fixture.imds().serve(Docs.document(2, Docs.scheduled(a, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "WestNO_0")));
        try (InProcessAgent agent = agent().start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() == 1);
            fixture.imds().serve(Docs.document(3, Docs.started(a, "Freeze", "WestNO_0")));
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() == 2);
            fixture.imds().serve(Docs.document(4));
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() == 3);
            Spool spool = agent.bean("spool", Spool.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.depth("eventhubs") == 0);
            MeterRegistry registry = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
            // Counted just after the spool's depth falls: wait for the count rather than read it once.
            await().atMost(Duration.ofSeconds(5)).alias("one delivered batch per document").until(() -> Search.in(registry)
                    .name("bridge.deliveries").tags("sink", "eventhubs", "outcome", "delivered")
                    .counters().stream().mapToDouble(Counter::count).sum() == 3.0);
        }

        List<ReceivedMessage> messages = fixture.eventHub().messages();
        assertThat(messages).extracting(EventHubsSinkTest::transition)
                .containsExactly("Scheduled", "Started", "Completed");
        for (ReceivedMessage m : messages) {
            JsonNode ce = json(m);
            String transition = ce.path("data").path("transition").asText();
            assertThat(ce.path("specversion").asText()).isEqualTo("1.0");
            assertThat(ce.path("type").asText()).isEqualTo("io.github.scheduledeventsbridge.transition." + transition);
            assertThat(ce.path("subject").asText()).isEqualTo(a);
            assertThat(ce.path("data").path("vm").path("name").asText()).isEqualTo(VM);
            assertThat(m.applicationProperties())
                    .as("exactly the four properties, no internal header leaked")
                    .containsOnly(
                            entry("transition", transition), entry("eventType", "Freeze"),
                            entry("eventId", a), entry("vmName", VM));
            assertThat(m.partitionKey()).isEqualTo(VM);
            assertThat(m.address()).isEqualTo("hub");
        }
        assertThat(messages).extracting(EventHubsSinkTest::ceId).doesNotHaveDuplicates();
    }

    @Test
    void threeNewEventsInOneDocumentArriveAsOneBatchOfThree() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(3)));
        try (InProcessAgent agent = agent().start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() >= 3);
        }
        List<Batch> batches = fixture.eventHub().batches();
        assertThat(batches).hasSize(1);
        Batch batch = batches.get(0);
        assertThat(batch.batched()).as("one AMQP batch transfer").isTrue();
        assertThat(batch.messages()).extracting(EventHubsSinkTest::eventId).containsExactly(id(0), id(1), id(2));
        assertThat(batch.messages()).extracting(ReceivedMessage::partitionKey).containsOnly(VM);
        assertThat(batch.messages()).extracting(m -> m.applicationProperties().get("eventId"))
                .as("each event keeps its own properties").containsExactly(id(0), id(1), id(2));
        assertThat(batch.messages()).extracting(m -> m.applicationProperties().get("transition")).containsOnly("Scheduled");
    }

    @Test
    void transitionsDuringAnOutageWaitInTheSpoolAndAllArriveOnceTheHubIsBack() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(1)));
        try (InProcessAgent agent = agent().start()) {
            Spool spool = agent.bean("spool", Spool.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() == 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.depth("eventhubs") == 0);

            int port = fixture.eventHub().port();
            fixture.eventHub().stop();
            // Three documents while the hub is down: 5 new events, then all 6 start, then 2 complete.
            fixture.imds().serve(Docs.document(3, scheduled(6)));
            await().atMost(Duration.ofSeconds(20)).until(() -> spool.depth("eventhubs") == 1);
            fixture.imds().serve(Docs.document(4, started(6)));
            await().atMost(Duration.ofSeconds(20)).until(() -> spool.depth("eventhubs") == 2);
            String[] lastFour = IntStream.range(2, 6).mapToObj(i -> Docs.started(id(i), "Reboot", "vm-" + i))
                    .toArray(String[]::new);
            fixture.imds().serve(Docs.document(5, lastFour));
            await().atMost(Duration.ofSeconds(20)).until(() -> spool.depth("eventhubs") == 3);
            assertThat(fixture.eventHub().messages()).hasSize(1);

            AmqpRetryOptions retry = agent.context().getComponent("azure-eventhubs", EventHubsComponent.class)
                    .getConfiguration().getAmqpRetryOptions();
            assertThat(retry).as("the test's retry policy reached the component through properties alone")
                    .isSameAs(agent.bean("fastRetry", AmqpRetryOptions.class));
            assertThat(retry.getMode()).isEqualTo(AmqpRetryMode.FIXED);
            assertThat(retry.getDelay()).isEqualTo(Duration.ofMillis(200));

            fixture.eventHub().restart();
            assertThat(fixture.eventHub().port()).isEqualTo(port);
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.eventHub().messages().size() >= 1 + 5 + 6 + 2);
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.depth("eventhubs") == 0);
        }

        List<ReceivedMessage> messages = fixture.eventHub().messages();
        assertThat(messages).hasSize(14);
        assertThat(messages).extracting(EventHubsSinkTest::ceId).as("none lost, none twice").doesNotHaveDuplicates();
        for (int i = 0; i < 6; i++) {
            String eventId = id(i);
            List<String> transitions = messages.stream().filter(m -> eventId(m).equals(eventId))
                    .map(EventHubsSinkTest::transition).toList();
            assertThat(transitions).as("event %d, in order", i)
                    .containsExactlyElementsOf(i < 2 ? List.of("Scheduled", "Started", "Completed")
                            : List.of("Scheduled", "Started"));
        }
        assertThat(fixture.eventHub().batches()).extracting(Batch::size).containsExactly(1, 5, 6, 2);
        assertThat(messages).extracting(ReceivedMessage::partitionKey).containsOnly(VM);
    }

    @Test
    void undeliveredBatchesSurviveARestartOfTheAgentAndAreSentOnce() throws Exception {
        fixture.eventHub().stop();
        fixture.imds().serve(Docs.document(2, scheduled(2)));
        try (InProcessAgent first = agent().start()) {
            Spool spool = first.bean("spool", Spool.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> spool.depth("eventhubs") == 1);
        }
        try (Stream<Path> files = Files.list(fixture.state().resolve("spool").resolve("eventhubs"))) {
            assertThat(files.filter(f -> f.toString().endsWith(".json")).count())
                    .as("the undelivered batch stayed on disk").isEqualTo(1);
        }
        assertThat(fixture.eventHub().messages()).isEmpty();

        fixture.eventHub().restart();
        try (InProcessAgent second = agent().start()) {
            Spool spool = second.bean("spool", Spool.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventHub().messages().size() >= 2);
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.depth("eventhubs") == 0);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.imds().documentsServed() >= served + 3);
        }
        assertThat(fixture.eventHub().batches()).hasSize(1);
        assertThat(fixture.eventHub().messages()).extracting(EventHubsSinkTest::eventId).containsExactly(id(0), id(1));
        assertThat(fixture.eventHub().messages()).extracting(EventHubsSinkTest::transition).containsOnly("Scheduled");
    }

    @Test
    void aThousandEventDocumentArrivesCompletelyAndInOrder() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(1000)));
        try (InProcessAgent agent = agent().start()) {
            Spool spool = agent.bean("spool", Spool.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.eventHub().messages().size() >= 1000);
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.depth("eventhubs") == 0);
        }
        List<ReceivedMessage> messages = fixture.eventHub().messages();
        assertThat(messages).hasSize(1000);
        assertThat(messages).extracting(EventHubsSinkTest::eventId)
                .containsExactlyElementsOf(IntStream.range(0, 1000).mapToObj(EventHubsSinkTest::id).toList());
        assertThat(messages).extracting(EventHubsSinkTest::ceId).doesNotHaveDuplicates();
        assertThat(messages).extracting(ReceivedMessage::partitionKey).containsOnly(VM);
        List<Batch> batches = fixture.eventHub().batches();
        assertThat(batches).as("too big for one batch: sent as a few, each a batch transfer")
                .hasSizeBetween(2, 20).allMatch(Batch::batched);
    }
}
