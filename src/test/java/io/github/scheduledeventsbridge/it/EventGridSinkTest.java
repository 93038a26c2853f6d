package io.github.scheduledeventsbridge.it;

import com.azure.messaging.eventgrid.EventGridEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Answer;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Event Grid topics as sinks, over real sockets: a loopback receiver is the topic, and every Event Grid schema
 * request is read with Azure's own client (EventGridEvent.fromString).
 */
class EventGridSinkTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Shaped like a topic key (base64 of 32 bytes). */
    private static final String KEY = "Zm9yLXRlc3RzLW9ubHktbm90LWEtcmVhbC10b3BpYy1rZXk=";

    @Test
    void bothSchemasGetTheKeyAsAegSasKeyAndNoLogShowsIt() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try (WebhookReceiver topic = WebhookReceiver.start(null); LogCapture log = LogCapture.install()) {
            // The first request is refused as an unknown key would be (401): retried as any webhook's 4xx.
            topic.script(json -> Answer.of(attempts.incrementAndGet() == 1 ? 401 : 200));
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"),
                    "eventgrid-cloudevents:" + topic.url("/api/cloudevents"))
                    .with("bridge.eventgrid.key", KEY).with("bridge.delivery.initial-backoff", "100").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> topic.delivered().size() == 2);
            }
            assertThat(topic.requests()).allSatisfy(r -> {
                assertThat(r.header("aeg-sas-key")).isEqualTo(KEY);
                assertThat(r.authorization()).isNull();
                assertThat(r.method()).isEqualTo("POST");
            });
            Request eventGrid = topic.delivered().stream().filter(r -> r.path().equals("/api/events")).findFirst().orElseThrow();
            assertThat(eventGrid.contentType()).startsWith("application/json");
            List<EventGridEvent> events = EventGridEvent.fromString(eventGrid.body());
            assertThat(events).hasSize(1);
            assertThat(events.get(0).getEventType()).isEqualTo("io.github.scheduledeventsbridge.transition.Scheduled");
            assertThat(events.get(0).getSubject()).endsWith("/providers/microsoft.maintenance/scheduledevents/" + A);
            JsonNode data = MAPPER.readTree(events.get(0).getData().toBytes());
            assertThat(data.path("resourceInfo").path("properties").path("EventStatus").asText()).isEqualTo("Scheduled");
            assertThat(data.path("resourceInfo").path("properties").path("NotBefore").asText()).isEqualTo(NOT_BEFORE);

            Request cloudEvents = topic.delivered().stream().filter(r -> r.path().equals("/api/cloudevents")).findFirst().orElseThrow();
            assertThat(cloudEvents.contentType()).startsWith("application/cloudevents-batch+json");
            assertThat(cloudEvents.json().isArray()).isTrue();
            assertThat(cloudEvents.json().get(0).path("specversion").asText()).isEqualTo("1.0");
            assertThat(cloudEvents.json().get(0).path("id").asText()).as("one transition, one id in both schemas")
                    .isEqualTo(events.get(0).getId());

            assertThat(log.text()).contains("HTTP 401").doesNotContain(KEY);
        }
    }

    @Test
    void aRedirectToAnotherHostIsNotFollowedSoTheKeyStaysWithTheTopic() throws Exception {
        AtomicInteger redirected = new AtomicInteger();
        HttpServer moved = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        try (WebhookReceiver elsewhere = WebhookReceiver.start(null); LogCapture log = LogCapture.install()) {
            String target = "http://localhost:" + java.net.URI.create(elsewhere.url()).getPort() + "/stolen";
            moved.createContext("/", exchange -> {
                exchange.getRequestBody().readAllBytes();
                redirected.incrementAndGet();
                exchange.getResponseHeaders().add("Location", target);
                exchange.sendResponseHeaders(307, -1);
                exchange.close();
            });
            moved.start();
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:http://127.0.0.1:" + moved.getAddress().getPort() + "/api/events")
                    .with("bridge.eventgrid.key", KEY).with("bridge.delivery.initial-backoff", "100").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> redirected.get() >= 2);
                await().atMost(Duration.ofSeconds(10)).until(() -> log.text().contains("HTTP 307"));
            }
            assertThat(elsewhere.requests()).as("nothing reached the other host").isEmpty();
            assertThat(log.text()).contains("moved to").doesNotContain(KEY);
        } finally {
            moved.stop(0);
        }
    }

    @Test
    void aDocumentTooBigForOneRequestGoesInRequestsOfAtMostOneMegabyteEachEventOnce() throws Exception {
        List<String> ids = new ArrayList<>();
        String[] events = bigEvents(ids);
        try (WebhookReceiver topic = WebhookReceiver.start(null)) {
            fixture.imds().serve(Docs.document(2, events));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"))
                    .with("bridge.eventgrid.key", KEY).with("bridge.imds.max-document-size", "4194304").start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> received(topic).size() >= ids.size());
            }
            assertThat(topic.delivered().size()).as("more than one request").isGreaterThan(1);
            assertThat(topic.delivered()).allSatisfy(r ->
                    assertThat(r.body().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1_000_000));
            assertThat(received(topic)).extracting(e -> e.getSubject().substring(e.getSubject().lastIndexOf('/') + 1))
                    .as("every event once, in the document's order").containsExactlyElementsOf(ids);
        }
    }

    @Test
    void aRetryResumesWithTheFirstRequestNotAcceptedAfterTheTopicsRetryAfter() throws Exception {
        List<String> ids = new ArrayList<>();
        String[] events = bigEvents(ids);
        AtomicInteger answered = new AtomicInteger();
        List<Instant> answeredAt = new CopyOnWriteArrayList<>();
        try (WebhookReceiver topic = WebhookReceiver.start(null)) {
            // The second request is turned away once (503, Retry-After: 2 s); every other one is accepted.
            topic.script(json -> {
                answeredAt.add(Instant.now());
                return answered.incrementAndGet() == 2 ? new Answer(503, "2") : Answer.of(200);
            });
            fixture.imds().serve(Docs.document(2, events));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"))
                    .with("bridge.eventgrid.key", KEY).with("bridge.imds.max-document-size", "4194304")
                    .with("bridge.delivery.initial-backoff", "100").start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> received(topic).size() >= ids.size());
            }
            assertThat(topic.failedAttempts()).hasSize(1);
            assertThat(topic.delivered().size()).as("more than two requests").isGreaterThan(2);
            assertThat(received(topic)).extracting(e -> e.getSubject().substring(e.getSubject().lastIndexOf('/') + 1))
                    .as("every event exactly once, in the document's order: the accepted first request not sent again")
                    .containsExactlyElementsOf(ids);
            assertThat(topic.failedAttempts().get(0).body()).as("the refused request is the one sent again")
                    .isEqualTo(topic.delivered().get(1).body());
            assertThat(Duration.between(answeredAt.get(1), answeredAt.get(2)))
                    .as("the lane waited as the topic's Retry-After asked, not its 100 ms back-off")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1900));
        }
    }

    /** 24 events of about 50 KB each, in several requests of at most 1 MB; their ids, in order, go to {@code ids}. */
    private static String[] bigEvents(List<String> ids) {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            String[] resources = new String[1000];
            for (int r = 0; r < resources.length; r++) {
                resources[r] = "scale-set-instance-with-a-long-name_" + i + "_" + r;
            }
            String id = String.format("%08X-0000-0000-0000-%012X", i, i);
            ids.add(id);
            events.add(Docs.scheduled(id, "Freeze", NOT_BEFORE, resources));
        }
        return events.toArray(String[]::new);
    }

    @Test
    void aTransitionKeepsItsIdWhenItIsSentAgainAfterARestart() throws Exception {
        try (WebhookReceiver topic = WebhookReceiver.start(null)) {
            topic.answerWith(503);
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"))
                    .with("bridge.eventgrid.key", KEY).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> !topic.failedAttempts().isEmpty());
            }
            String before = EventGridEvent.fromString(topic.failedAttempts().get(0).body()).get(0).getId();
            topic.answerWith(200);
            // The same state directory: the message waits in the spool and goes out after the start.
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"))
                    .with("bridge.eventgrid.key", KEY).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> !topic.delivered().isEmpty());
            }
            assertThat(received(topic)).extracting(EventGridEvent::getId).containsExactly(before);
        }
    }

    @Test
    void withoutAKeyTheManagedIdentitysTokenForEventGridIsSentAndKeptWhileValid() throws Exception {
        List<String> tokenRequests = new CopyOnWriteArrayList<>();
        AtomicInteger failFirst = new AtomicInteger(1);
        HttpServer identity = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        identity.createContext("/metadata/identity/oauth2/token", exchange -> {
            tokenRequests.add(exchange.getRequestURI().getRawQuery() + " Metadata=" + exchange.getRequestHeaders().getFirst("Metadata"));
            byte[] body;
            int status;
            if (failFirst.getAndDecrement() > 0) {
                status = 500;
                body = "{\"error\":\"unknown_error\",\"error_description\":\"busy\"}".getBytes(StandardCharsets.UTF_8);
            } else {
                status = 200;
                body = ("{\"access_token\":\"eyJ0eXAiOiJKV1QifQ.e30.token-for-tests\",\"expires_on\":\""
                        + Instant.now().plusSeconds(3600).getEpochSecond() + "\",\"resource\":\"https://eventgrid.azure.net\","
                        + "\"token_type\":\"Bearer\"}").getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        identity.start();
        try (WebhookReceiver topic = WebhookReceiver.start(null); LogCapture log = LogCapture.install()) {
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo("eventgrid:" + topic.url("/api/events"))
                    .with("bridge.imds.identity-url", "http://127.0.0.1:" + identity.getAddress().getPort()
                            + "/metadata/identity/oauth2/token")
                    .with("bridge.delivery.initial-backoff", "100").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> topic.delivered().size() == 1);
                fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
                await().atMost(Duration.ofSeconds(30)).until(() -> topic.delivered().size() == 2);
            }
            assertThat(topic.requests()).allSatisfy(r -> {
                assertThat(r.authorization()).isEqualTo("Bearer eyJ0eXAiOiJKV1QifQ.e30.token-for-tests");
                assertThat(r.header("aeg-sas-key")).isNull();
            });
            assertThat(tokenRequests).as("one failure, then one token kept for both documents").hasSize(2)
                    .allSatisfy(q -> assertThat(q).contains("resource=https%3A%2F%2Feventgrid.azure.net", "Metadata=true"));
            assertThat(log.text()).contains("no managed-identity token for Event Grid", "HTTP 500")
                    .doesNotContain("token-for-tests");
        } finally {
            identity.stop(0);
        }
    }

    /** One machine runs it all: the built-in simulator is the IMDS and answers the identity endpoint too. */
    @Test
    void withTheSimulatorTheTopicGetsATokenForEventGridFromItsIdentityEndpoint() throws Exception {
        try (WebhookReceiver topic = WebhookReceiver.start(null);
             InProcessAgent agent = InProcessAgent.builder(fixture.state()).with("bridge.simulator.enabled", "true")
                     .with("bridge.simulator.scenarios", "freeze").with("bridge.simulator.loop", "false")
                     .with("bridge.webhook.urls", "eventgrid:" + topic.url("/api/events")).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !topic.delivered().isEmpty());
            Request first = topic.delivered().get(0);
            assertThat(first.authorization()).startsWith("Bearer ");
            String[] jwt = first.authorization().substring("Bearer ".length()).split("\\.");
            JsonNode claims = MAPPER.readTree(java.util.Base64.getUrlDecoder().decode(jwt[1]));
            assertThat(claims.path("aud").asText()).isEqualTo("https://eventgrid.azure.net");
            assertThat(EventGridEvent.fromString(first.body())).isNotEmpty()
                    .allSatisfy(e -> assertThat(e.getEventType()).startsWith("io.github.scheduledeventsbridge."));
        }
    }

    private static List<EventGridEvent> received(WebhookReceiver topic) {
        List<EventGridEvent> events = new ArrayList<>();
        for (Request request : topic.delivered()) {
            events.addAll(EventGridEvent.fromString(request.body()));
        }
        return events;
    }
}
