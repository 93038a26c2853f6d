package io.github.scheduledeventsbridge.simulator;

import io.github.scheduledeventsbridge.testing.ManualClock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator.Options;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Talks to the simulator over real sockets. Tests about exact timing use a {@link ManualClock} at speed 60
 * (one real second is one simulated minute); tests about the simulator running on its own use the system
 * clock at high speed and Awaitility, asserting only on what was observed, never on how long it took.
 */
class ImdsSimulatorTest {

    private static final String API = "api-version=2020-07-01";
    private static final String COMPUTE_API = "api-version=2021-02-01";
    private static final Instant ORIGIN = Instant.parse("2022-04-11T22:26:00Z");
    private static final DateTimeFormatter RFC1123 =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static final String UPPERCASE_UUID = "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final ManualClock clock = new ManualClock(ORIGIN);
    private final List<ImdsSimulator> simulators = new ArrayList<>();

    @AfterEach
    void closeSimulators() {
        simulators.forEach(ImdsSimulator::close);
    }

    // --- HTTP protocol --------------------------------------------------------------------------------------

    @Test
    void requestsWithoutMetadataHeaderAreRejected() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");

        for (URI uri : List.of(sim.scheduledEventsUri(), sim.instanceComputeUri())) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(withQuery(uri, API)).GET());
            assertThat(response.statusCode()).as(uri.toString()).isEqualTo(400);
            assertThat(JSON.readTree(response.body()).get("error").asText())
                    .isEqualTo("Bad request. Required metadata header not specified");
        }
        assertThat(get(sim.scheduledEventsUri(), API, "false").statusCode()).isEqualTo(400);
        assertThat(get(sim.scheduledEventsUri(), API, "TRUE").statusCode()).isEqualTo(200);
    }

    @Test
    void missingOrUnsupportedApiVersionIsRejected() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");

        HttpResponse<String> missing = get(sim.scheduledEventsUri(), null, "true");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(missing.body()).get("error").asText())
                .startsWith("Bad request. api-version was not specified in the request.");
        assertThat(get(sim.scheduledEventsUri(), "api-version=2021-02-01", "true").statusCode()).isEqualTo(400);
        assertThat(get(sim.scheduledEventsUri(), "api-version=2017-08-01", "true").statusCode()).isEqualTo(200);
        assertThat(get(sim.instanceComputeUri(), null, "true").statusCode()).isEqualTo(400);
        assertThat(get(sim.instanceComputeUri(), "api-version=latest", "true").statusCode()).isEqualTo(400);
        assertThat(get(sim.instanceComputeUri(), "api-version=2023-07-01", "true").statusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"api-version=%zz", "api-version=%C3%28", "x=%&api-version=2020-07-01"})
    void aMalformedQueryIsAnsweredAsAnInvalidVersion(String query) throws Exception {
        ImdsSimulator sim = manual(true, "freeze");

        String answer = RawSockets.exchange(sim.port(), "GET /metadata/scheduledevents?" + query + " HTTP/1.1\r\n"
                + "Host: x\r\nMetadata: true\r\nConnection: close\r\n\r\n", Duration.ofSeconds(5));
        assertThat(answer).startsWith("HTTP/1.1 400").contains("api-version is invalid");
    }

    @Test
    void unknownPathsUnsupportedMethodsAndOversizedBodiesAreRejected() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");
        URI events = withQuery(sim.scheduledEventsUri(), API);

        assertThat(get(sim.scheduledEventsUri().resolve("/metadata/identity"), API, "true").statusCode())
                .isEqualTo(404);
        HttpResponse<String> delete = send(metadataRequest(events).DELETE());
        assertThat(delete.statusCode()).isEqualTo(405);
        assertThat(delete.headers().firstValue("Allow")).contains("GET, POST");
        HttpResponse<String> head = send(metadataRequest(events).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.statusCode()).isEqualTo(405);
        assertThat(head.body()).isEmpty();
        String headThenGet = RawSockets.exchange(sim.port(), "HEAD /metadata/scheduledevents?" + API + " HTTP/1.1\r\n"
                + "Host: x\r\nMetadata: true\r\n\r\nGET /metadata/scheduledevents?" + API + " HTTP/1.1\r\n"
                + "Host: x\r\nMetadata: true\r\nConnection: close\r\n\r\n", Duration.ofSeconds(5));
        assertThat(headThenGet).as("not a byte of body after HEAD's headers").matches(
                "(?s)HTTP/1.1 405 [^\r]*\r\n([^\r]+\r\n)*\r\nHTTP/1.1 200 .*");
        HttpResponse<String> postCompute = send(metadataRequest(withQuery(sim.instanceComputeUri(), COMPUTE_API))
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(postCompute.statusCode()).isEqualTo(405);
        assertThat(post(sim, "x".repeat(ImdsHandler.MAX_BODY_BYTES + 1)).statusCode()).isEqualTo(413);
        HttpResponse<String> counted = send(metadataRequest(withQuery(sim.scheduledEventsUri(), API)).POST(
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[ImdsHandler.MAX_BODY_BYTES + 1]))));
        assertThat(counted.statusCode()).as("a chunked body, counted past the limit").isEqualTo(413);
        assertThat(JSON.readTree(counted.body()).has("error")).isTrue();
        assertThat(post(sim, " ".repeat(ImdsHandler.MAX_BODY_BYTES)).statusCode())
                .as("a body right at the limit is read and judged on its content")
                .isEqualTo(400);
    }

    @Test
    void instanceMetadataDescribesTheSimulatedVm() throws Exception {
        ImdsSimulator sim = start(Options.defaults().withClock(clock).withVmName("web-7"));

        HttpResponse<String> response = get(sim.instanceComputeUri(), COMPUTE_API, "true");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/json; charset=utf-8");
        JsonNode compute = JSON.readTree(response.body());
        assertThat(compute.get("name").asText()).isEqualTo("web-7");
        assertThat(compute.get("vmId").asText()).matches("[0-9a-f-]{36}");
        assertThat(compute.get("resourceId").asText()).isEqualTo("/subscriptions/00000000-0000-0000-0000-000000000000"
                + "/resourceGroups/sim-rg/providers/Microsoft.Compute/virtualMachines/web-7");
        assertThat(compute.get("location").asText()).isEqualTo("westeurope");
        assertThat(compute.get("vmSize").asText()).isEqualTo("Standard_D2s_v3");
        assertThat(compute.get("osType").asText()).isEqualTo("Linux");
        assertThat(compute.get("vmScaleSetName").asText()).isEmpty();

        URI instance = sim.instanceComputeUri().resolve("/metadata/instance");
        assertThat(JSON.readTree(get(instance, COMPUTE_API, "true").body()).get("compute")).isEqualTo(compute);

        ImdsSimulator sameName = start(Options.defaults().withClock(clock).withVmName("web-7"));
        ImdsSimulator otherName = start(Options.defaults().withClock(clock).withVmName("web-8"));
        assertThat(vmId(sameName)).as("vmId is derived from the name").isEqualTo(compute.get("vmId").asText());
        assertThat(vmId(otherName)).isNotEqualTo(compute.get("vmId").asText());
    }

    // --- Document and incarnation ---------------------------------------------------------------------------

    @Test
    void initialDocumentHasIncarnationOneAndNoEvents() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");

        HttpResponse<String> response = get(sim.scheduledEventsUri(), API, "true");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/json; charset=utf-8");
        assertThat(response.body()).isEqualTo("{\"DocumentIncarnation\":1,\"Events\":[]}");
        assertThat(sim.documentJson()).isEqualTo(response.body());
        assertThat(sim.incarnation()).isEqualTo(1);
    }

    @Test
    void scenarioAppearsAsScheduledWithFutureNotBefore() {
        ImdsSimulator sim = realTime(600, true, "freeze");
        AtomicReference<Instant> askedAt = new AtomicReference<>();

        JsonNode document = waiting().until(() -> {
            askedAt.set(Instant.now());
            return document(sim);
        }, doc -> !doc.get("Events").isEmpty());

        assertThat(fieldNames(document)).containsExactly("DocumentIncarnation", "Events");
        JsonNode event = document.get("Events").get(0);
        assertThat(fieldNames(event)).containsExactly("EventId", "EventStatus", "EventType", "ResourceType",
                "Resources", "NotBefore", "Description", "EventSource", "DurationInSeconds");
        assertThat(event.get("EventId").asText()).matches(UPPERCASE_UUID);
        assertThat(event.get("EventStatus").asText()).isEqualTo("Scheduled");
        assertThat(event.get("EventType").asText()).isEqualTo("Freeze");
        assertThat(event.get("ResourceType").asText()).isEqualTo("VirtualMachine");
        assertThat(texts(event.get("Resources"))).containsExactly("sim-vm-0", "sim-vm-1");
        assertThat(event.get("Description").asText()).isEqualTo(
                "Virtual machine is being paused because of a memory-preserving Live Migration operation.");
        assertThat(event.get("EventSource").asText()).isEqualTo("Platform");
        assertThat(event.get("DurationInSeconds").asInt()).isEqualTo(5);
        assertThat(notBefore(event)).isAfter(askedAt.get());
    }

    @Test
    void notBeforeIsAppearancePlusNoticeRoundedUpToTheSecond() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");

        advanceToFirstAppearance();

        // Appears 5 simulated seconds after 22:26:00 with 15 minutes' notice: 22:26:15.083 real, rounded up.
        assertThat(onlyEvent(document(sim)).get("NotBefore").asText()).isEqualTo("Mon, 11 Apr 2022 22:26:16 GMT");
    }

    @Test
    void incarnationChangesOncePerObservedChangeAndStaysPutOtherwise() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");
        advanceToFirstAppearance();

        String scheduled = sim.documentJson();
        assertThat(get(sim.scheduledEventsUri(), API, "true").body()).isEqualTo(scheduled);
        assertThat(get(sim.scheduledEventsUri(), API, "true").body()).isEqualTo(scheduled);
        assertThat(document(sim).get("DocumentIncarnation").asLong()).isEqualTo(2);

        advanceMinutes(14);
        assertThat(sim.documentJson()).as("time passing without a change").isEqualTo(scheduled);

        advanceMinutes(2);
        assertThat(onlyEvent(document(sim)).get("EventStatus").asText()).isEqualTo("Started");
        assertThat(sim.incarnation()).isEqualTo(3);

        // Between these observations the first freeze completed and the next loop's freeze appeared:
        // two steps, one observed change, one increment.
        advanceMinutes(11);
        JsonNode afterTwoSteps = document(sim);
        assertThat(onlyEvent(afterTwoSteps).get("EventStatus").asText()).isEqualTo("Scheduled");
        assertThat(afterTwoSteps.get("DocumentIncarnation").asLong()).isEqualTo(4);
    }

    @Test
    void incarnationStrictlyIncreasesWheneverEventsChangeWhileRunningOnItsOwn() {
        ImdsSimulator sim = realTime(3000, true, Options.DEFAULT_SCENARIOS.toArray(String[]::new));
        List<JsonNode> observed = new CopyOnWriteArrayList<>();

        waiting().until(() -> {
            observed.add(document(sim));
            return observed.stream().map(doc -> doc.get("DocumentIncarnation").asLong()).distinct().count() >= 10;
        });

        int changes = 0;
        for (int i = 1; i < observed.size(); i++) {
            JsonNode previous = observed.get(i - 1);
            JsonNode current = observed.get(i);
            long before = previous.get("DocumentIncarnation").asLong();
            long after = current.get("DocumentIncarnation").asLong();
            if (current.get("Events").equals(previous.get("Events"))) {
                assertThat(after).as("unchanged Events keep their incarnation").isEqualTo(before);
            } else {
                assertThat(after).as("changed Events get a new incarnation").isEqualTo(before + 1);
                changes++;
            }
        }
        assertThat(changes).isGreaterThanOrEqualTo(9);
    }

    // --- Approval -------------------------------------------------------------------------------------------

    @Test
    void approvalStartsScheduledEventAtOnce() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");
        advanceToFirstAppearance();
        String eventId = onlyEvent(document(sim)).get("EventId").asText();

        HttpResponse<String> approval = post(sim, startRequests(eventId.toLowerCase(Locale.ROOT)));

        assertThat(approval.statusCode()).isEqualTo(200);
        assertThat(approval.body()).isEmpty();
        JsonNode document = document(sim);
        JsonNode event = onlyEvent(document);
        assertThat(event.get("EventId").asText()).isEqualTo(eventId);
        assertThat(event.get("EventStatus").asText()).isEqualTo("Started");
        assertThat(event.get("NotBefore").asText()).isEmpty();
        assertThat(document.get("DocumentIncarnation").asLong()).isEqualTo(3);

        assertThat(post(sim, startRequests(eventId)).statusCode()).as("approving a Started event").isEqualTo(200);
        assertThat(sim.incarnation()).as("is a no-op").isEqualTo(3);

        advanceMinutes(9.9);
        assertThat(document(sim).get("Events")).as("Started period counts from approval").hasSize(1);
        advanceMinutes(0.2);
        assertThat(document(sim).get("Events")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"StartRequests\":[{\"EventId\":\"00000000-0000-0000-0000-000000000000\"}]}",
            "{\"StartRequests\":[{\"EventId\":\"%s\"},{\"EventId\":\"00000000-0000-0000-0000-000000000000\"}]}",
            "{\"StartRequests\":[{\"EventId\":\"%s\"}]",
            "{\"StartRequests\":{\"EventId\":\"%s\"}}",
            "{\"StartRequests\":[{\"EventId\":42}]}",
            "{\"StartRequests\":[]}",
            "{}",
            ""})
    void invalidStartRequestsAreRejectedAndChangeNothing(String bodyTemplate) throws Exception {
        ImdsSimulator sim = manual(true, "freeze");
        advanceToFirstAppearance();
        String before = sim.documentJson();
        String eventId = onlyEvent(JSON.readTree(before)).get("EventId").asText();

        HttpResponse<String> response = post(sim, bodyTemplate.formatted(eventId));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(response.body()).get("error").asText()).startsWith("Bad request.");
        assertThat(get(sim.scheduledEventsUri(), API, "true").body()).isEqualTo(before);
    }

    @Test
    void postWithoutMetadataHeaderApprovesNothing() throws Exception {
        ImdsSimulator sim = manual(true, "freeze");
        advanceToFirstAppearance();
        String before = sim.documentJson();
        String eventId = onlyEvent(JSON.readTree(before)).get("EventId").asText();

        HttpResponse<String> response = send(HttpRequest.newBuilder(withQuery(sim.scheduledEventsUri(), API))
                .POST(HttpRequest.BodyPublishers.ofString(startRequests(eventId))));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(sim.documentJson()).isEqualTo(before);
    }

    // --- Lifecycle on its own -------------------------------------------------------------------------------

    @Test
    void scheduledEventStartsWhenNotBeforePasses() {
        ImdsSimulator sim = realTime(300, true, "freeze");
        JsonNode scheduled = waiting().until(() -> document(sim), doc -> !doc.get("Events").isEmpty())
                .get("Events").get(0);
        assertThat(scheduled.get("EventStatus").asText()).isEqualTo("Scheduled");
        String eventId = scheduled.get("EventId").asText();

        JsonNode started = waiting()
                .until(() -> event(document(sim), eventId), event -> event.filter(ImdsSimulatorTest::isStarted).isPresent())
                .orElseThrow();
        Instant seenStartedAt = Instant.now();

        assertThat(started.get("NotBefore").asText()).isEmpty();
        assertThat(seenStartedAt).as("never started before its NotBefore").isAfterOrEqualTo(notBefore(scheduled));
    }

    @Test
    void startedEventVanishesAfterItsStartedPeriod() {
        ImdsSimulator sim = realTime(300, false, "redeploy");
        JsonNode started = waiting()
                .until(() -> document(sim), doc -> doc.get("Events").size() == 1 && isStarted(doc.get("Events").get(0)));
        long incarnationWhenStarted = started.get("DocumentIncarnation").asLong();

        JsonNode after = waiting().until(() -> document(sim), doc -> doc.get("Events").isEmpty());

        assertThat(after.get("DocumentIncarnation").asLong()).isEqualTo(incarnationWhenStarted + 1);
    }

    @Test
    void hardwareFailureAppearsDirectlyAsStarted() {
        ImdsSimulator sim = realTime(300, false, "hardware-failure");

        JsonNode document = waiting().until(() -> document(sim), doc -> !doc.get("Events").isEmpty());

        JsonNode event = onlyEvent(document);
        assertThat(document.get("DocumentIncarnation").asLong()).as("no Scheduled version came first").isEqualTo(2);
        assertThat(event.get("EventStatus").asText()).isEqualTo("Started");
        assertThat(event.get("NotBefore").asText()).isEmpty();
        assertThat(event.get("EventType").asText()).isEqualTo("Reboot");
        assertThat(event.get("EventSource").asText()).isEqualTo("Platform");
        assertThat(event.get("DurationInSeconds").asInt()).isEqualTo(-1);
        assertThat(event.get("Description").asText())
                .isEqualTo("Virtual machine is being rebooted because of an unexpected host hardware failure.");
    }

    @Test
    void cancelledEventVanishesWithoutEverStarting() {
        ImdsSimulator sim = realTime(300, false, "cancelled");
        List<String> statusesSeen = new CopyOnWriteArrayList<>();

        waiting().until(() -> {
            JsonNode events = document(sim).get("Events");
            events.forEach(event -> statusesSeen.add(event.get("EventStatus").asText()));
            return !statusesSeen.isEmpty() && events.isEmpty();
        });

        assertThat(statusesSeen).isNotEmpty().containsOnly("Scheduled");
    }

    @Test
    void cancelledEventIsWithdrawnFiveMinutesAfterAppearing() throws Exception {
        ImdsSimulator sim = manual(true, "cancelled");
        advanceToFirstAppearance();
        assertThat(onlyEvent(document(sim)).get("EventStatus").asText()).isEqualTo("Scheduled");

        advanceMinutes(4.9);
        assertThat(onlyEvent(document(sim)).get("EventStatus").asText()).isEqualTo("Scheduled");
        advanceMinutes(0.2);
        JsonNode document = document(sim);
        assertThat(document.get("Events")).isEmpty();
        assertThat(document.get("DocumentIncarnation").asLong()).isEqualTo(3);
    }

    @Test
    void cancelledEventApprovedInTimeRunsLikeAnyStartedEvent() throws Exception {
        ImdsSimulator sim = manual(true, "cancelled");
        advanceToFirstAppearance();
        String eventId = onlyEvent(document(sim)).get("EventId").asText();

        assertThat(post(sim, startRequests(eventId)).statusCode()).isEqualTo(200);

        advanceMinutes(9.9);
        assertThat(onlyEvent(document(sim)).get("EventStatus").asText()).isEqualTo("Started");
        advanceMinutes(0.2);
        assertThat(document(sim).get("Events")).isEmpty();
    }

    // --- Scenario catalogue and looping ---------------------------------------------------------------------

    @Test
    void defaultScenariosPlayTwentySimulatedMinutesApartInOrder() throws Exception {
        ImdsSimulator sim = start(Options.defaults().withClock(clock));
        List<String> appeared = new ArrayList<>();

        advanceToFirstAppearance();
        for (int k = 0; k < Options.DEFAULT_SCENARIOS.size(); k++) {
            JsonNode events = document(sim).get("Events");
            JsonNode newest = events.get(events.size() - 1);
            appeared.add(String.join("/", newest.get("EventType").asText(), newest.get("EventSource").asText(),
                    newest.get("EventStatus").asText(), newest.get("DurationInSeconds").asText()));
            assertThat(newest.get("Description").asText()).isNotBlank();
            assertThat(texts(newest.get("Resources"))).contains("sim-vm-0");
            advanceMinutes(20);
        }

        assertThat(Options.DEFAULT_SCENARIOS).containsExactly(
                "freeze", "user-reboot", "redeploy", "hardware-failure", "cancelled", "spot-preempt", "terminate");
        assertThat(appeared).containsExactly(
                "Freeze/Platform/Scheduled/5",
                "Reboot/User/Scheduled/-1",
                "Redeploy/Platform/Scheduled/-1",
                "Reboot/Platform/Started/-1",
                "Reboot/Platform/Scheduled/-1",
                "Preempt/Platform/Scheduled/-1",
                "Terminate/User/Scheduled/-1");
    }

    @Test
    void noticePeriodsMatchAzureMinimums() throws Exception {
        ImdsSimulator sim = manual(false, "redeploy", "spot-preempt", "terminate");
        List<Duration> notices = new ArrayList<>();

        advanceToFirstAppearance();
        for (int k = 0; k < 3; k++) {
            JsonNode events = document(sim).get("Events");
            notices.add(Duration.between(clock.instant(), notBefore(events.get(events.size() - 1))));
            advanceMinutes(20);
        }

        // At speed 60 one simulated minute is one real second; NotBefore is rounded up to the second.
        assertThat(notices.get(0)).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
        assertThat(notices.get(1)).isBetween(Duration.ofMillis(500), Duration.ofMillis(1500));
        assertThat(notices.get(2)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(6));
    }

    @Test
    void otherVmScenarioNamesOnlyTheNeighbourAndIsNotPlayedByDefault() throws Exception {
        ImdsSimulator sim = manual(true, "other-vm");

        advanceToFirstAppearance();

        JsonNode event = onlyEvent(document(sim));
        assertThat(texts(event.get("Resources"))).containsExactly("sim-vm-1");
        assertThat(event.get("EventType").asText()).isEqualTo("Freeze");
        assertThat(Options.DEFAULT_SCENARIOS).doesNotContain("other-vm");
    }

    @Test
    void loopReplaysScenariosWithFreshEventIds() throws Exception {
        ImdsSimulator sim = manual(true, "spot-preempt");
        List<String> eventIds = new ArrayList<>();

        advanceToFirstAppearance();
        for (int cycle = 0; cycle < 3; cycle++) {
            eventIds.add(onlyEvent(document(sim)).get("EventId").asText());
            advanceMinutes(20);
        }

        assertThat(eventIds).doesNotHaveDuplicates().allMatch(id -> id.matches(UPPERCASE_UUID));
    }

    @Test
    void withoutLoopTheDocumentEndsEmptyForever() throws Exception {
        ImdsSimulator sim = manual(false, "spot-preempt", "terminate");
        advanceToFirstAppearance();
        assertThat(document(sim).get("Events")).hasSize(1);

        advanceMinutes(60);
        String ended = get(sim.scheduledEventsUri(), API, "true").body();
        clock.advance(Duration.ofDays(1000));

        assertThat(JSON.readTree(ended).get("Events")).isEmpty();
        assertThat(get(sim.scheduledEventsUri(), API, "true").body()).isEqualTo(ended);
    }

    // --- Options and lifecycle ------------------------------------------------------------------------------

    @Test
    void optionsHaveDocumentedDefaultsAndRejectNonsense() {
        Options defaults = Options.defaults();
        assertThat(defaults.host()).isEqualTo("127.0.0.1");
        assertThat(defaults.port()).isZero();
        assertThat(defaults.speed()).isEqualTo(60);
        assertThat(defaults.vmName()).isEqualTo("sim-vm-0");
        assertThat(defaults.scenarios()).isEqualTo(Options.DEFAULT_SCENARIOS);
        assertThat(defaults.loop()).isTrue();

        assertThatThrownBy(() -> defaults.withScenarios(List.of("freeze", "meteor")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("meteor").hasMessageContaining("other-vm");
        assertThatThrownBy(() -> defaults.withScenarios(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withSpeed(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withSpeed(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withPort(65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withVmName(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void simulatorStartsOnceAndClosesIdempotently() throws Exception {
        ImdsSimulator sim = new ImdsSimulator(Options.defaults());
        assertThatThrownBy(sim::port).isInstanceOf(IllegalStateException.class);

        sim.start();
        simulators.add(sim);
        assertThat(sim.port()).isPositive();
        assertThat(sim.scheduledEventsUri()).isEqualTo(URI.create("http://127.0.0.1:" + sim.port()
                + "/metadata/scheduledevents"));
        assertThatThrownBy(sim::start).isInstanceOf(IllegalStateException.class);

        sim.close();
        sim.close();
        assertThatThrownBy(sim::documentJson).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(sim::start).isInstanceOf(IllegalStateException.class);
    }

    // --- helpers --------------------------------------------------------------------------------------------

    private ImdsSimulator start(Options options) throws IOException {
        ImdsSimulator sim = new ImdsSimulator(options).start();
        simulators.add(sim);
        return sim;
    }

    /** A simulator on the manual clock at speed 60, so one real second on that clock is one simulated minute. */
    private ImdsSimulator manual(boolean loop, String... scenarios) throws IOException {
        return start(Options.defaults().withClock(clock).withLoop(loop).withScenarios(List.of(scenarios)));
    }

    private ImdsSimulator realTime(double speed, boolean loop, String... scenarios) {
        try {
            return start(Options.defaults().withSpeed(speed).withLoop(loop).withScenarios(List.of(scenarios)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first scenario appears 5 simulated seconds (83.3 ms at speed 60) after start. */
    private void advanceToFirstAppearance() {
        clock.advance(Duration.ofMillis(84));
    }

    private void advanceMinutes(double simulatedMinutes) {
        clock.advance(Duration.ofMillis(Math.round(simulatedMinutes * 1000)));
    }

    private static ConditionFactory waiting() {
        return await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
    }

    private JsonNode document(ImdsSimulator sim) throws Exception {
        HttpResponse<String> response = get(sim.scheduledEventsUri(), API, "true");
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private String vmId(ImdsSimulator sim) throws Exception {
        return JSON.readTree(get(sim.instanceComputeUri(), COMPUTE_API, "true").body()).get("vmId").asText();
    }

    private HttpResponse<String> get(URI uri, String query, String metadata) throws Exception {
        return send(HttpRequest.newBuilder(withQuery(uri, query)).header("Metadata", metadata).GET());
    }

    private HttpResponse<String> post(ImdsSimulator sim, String body) throws Exception {
        return send(metadataRequest(withQuery(sim.scheduledEventsUri(), API))
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder metadataRequest(URI uri) {
        return HttpRequest.newBuilder(uri).header("Metadata", "true");
    }

    private static URI withQuery(URI uri, String query) {
        return query == null ? uri : URI.create(uri + "?" + query);
    }

    private static String startRequests(String eventId) {
        return "{\"StartRequests\":[{\"EventId\":\"" + eventId + "\"}]}";
    }

    private static JsonNode onlyEvent(JsonNode document) {
        assertThat(document.get("Events")).hasSize(1);
        return document.get("Events").get(0);
    }

    private static Optional<JsonNode> event(JsonNode document, String eventId) {
        return StreamSupport.stream(document.get("Events").spliterator(), false)
                .filter(event -> event.get("EventId").asText().equals(eventId))
                .findFirst();
    }

    private static boolean isStarted(JsonNode event) {
        return "Started".equals(event.get("EventStatus").asText());
    }

    private static Instant notBefore(JsonNode event) {
        return ZonedDateTime.parse(event.get("NotBefore").asText(), RFC1123).toInstant();
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
