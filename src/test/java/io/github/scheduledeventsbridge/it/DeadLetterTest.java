package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Answer;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Request;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10: refused messages (webhook 4xx, SMTP 550) and unreadable spool files end in the dead-letter directory
 * and the lane goes on; Retry-After sets the pause. All over real sockets.
 */
class DeadLetterTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static final String C = "CCCCCCCC-0000-0000-0000-00000000000C";

    private static String eventIdOf(com.fasterxml.jackson.databind.JsonNode json) {
        return json.path("data").path("eventId").asText();
    }

    @Test
    void aRefusedMessageIsRetriedThenDeadLetteredAndTheLaneGoesOn() throws Exception {
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        try (WebhookReceiver receiver = WebhookReceiver.start("s"); LogCapture log = LogCapture.install()) {
            // A: 400 once, then accepted. B: 410 for ever. C: accepted.
            receiver.script(json -> {
                String id = eventIdOf(json);
                int attempt = attempts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                return id.equals(A) ? Answer.of(attempt == 1 ? 400 : 200) : id.equals(B) ? Answer.of(410) : Answer.of(200);
            });
            fixture.imds().serve(Docs.document(2, scheduled(A), scheduled(B), scheduled(C)));
            // One lane, so that C waits behind B until B is given up: the lane has to go on.
            try (InProcessAgent agent = fixture.postingTo(receiver.url()).with("bridge.delivery.dead-letter-after", "1500")
                    .with("bridge.webhook.concurrency", "1").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 2);
                assertThat(receiver.delivered()).extracting(Request::eventId).containsExactly(A, C);
                assertThat(attempts.get(B).get()).as("B was retried before it was given up").isGreaterThan(1);

                Path sinkDir;
                try (Stream<Path> dirs = Files.list(fixture.state().resolve("spool"))) {
                    sinkDir = dirs.filter(d -> d.getFileName().toString().startsWith("webhook-")).findFirst().orElseThrow();
                }
                String sinkId = sinkDir.getFileName().toString();
                List<Path> dead;
                try (Stream<Path> files = Files.list(sinkDir.resolve("dead-letter"))) {
                    dead = files.filter(f -> f.toString().endsWith(".json")).toList();
                }
                assertThat(dead).hasSize(1);
                assertThat(Files.readString(dead.get(0))).contains(B);
                // C's request is recorded before the agent reads its answer and deletes C's file: wait for that.
                await().atMost(Duration.ofSeconds(10)).alias("nothing else waits").until(() -> waitingIn(sinkDir) == 0);
                assertThat(agent.bean("deadLetters", DeadLetters.class).count(sinkId)).isEqualTo(1);
                MeterRegistry meters = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
                assertThat(meters.get("bridge.dead.letters").tag("sink", sinkId).counter().count()).isEqualTo(1.0);
                assertThat(log.lines()).anySatisfy(line -> assertThat(line).startsWith("ERROR").contains(sinkId, "HTTP 410"));
                Map<String, Object> readiness = org.apache.camel.health.HealthCheckHelper.invoke(agent.context(),
                                check -> Map.of(), check -> false, "full").stream()
                        .filter(r -> r.getCheck().getId().equals("sinks")).findFirst().orElseThrow().getDetails();
                assertThat(readiness).containsEntry("deadLetters", 1L).containsEntry("deadLetters." + sinkId, 1L);
            }

            // The way back of docs/delivery.md: move the file into the sink's spool and restart; now B is accepted.
            Path sinkDir;
            try (Stream<Path> dirs = Files.list(fixture.state().resolve("spool"))) {
                sinkDir = dirs.filter(d -> d.getFileName().toString().startsWith("webhook-")).findFirst().orElseThrow();
            }
            try (Stream<Path> files = Files.list(sinkDir.resolve("dead-letter"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                    Files.move(file, sinkDir.resolve(file.getFileName()));
                }
            }
            receiver.script(json -> Answer.of(200));
            try (InProcessAgent again = fixture.postingTo(receiver.url()).with("bridge.webhook.concurrency", "1").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 3);
            }
            assertThat(receiver.delivered()).extracting(Request::eventId).containsExactly(A, C, B);
        }
    }

    @Test
    void aMailTheSmtpServerRefusesForGoodIsDeadLetteredAndTheNextOneIsSent() throws Exception {
        try (io.github.scheduledeventsbridge.testing.RefusingSmtpServer smtp =
                     new io.github.scheduledeventsbridge.testing.RefusingSmtpServer(mail -> mail.contains(B))) {
            fixture.imds().serve(Docs.document(2, scheduled(A), scheduled(B), scheduled(C)));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.email.host", "127.0.0.1")
                    .with("bridge.email.port", Integer.toString(smtp.port()))
                    .with("bridge.email.from", "bridge@vm.example.com")
                    .with("bridge.email.to", "ops@example.com")
                    .with("bridge.email.starttls", "false")
                    .with("bridge.delivery.initial-backoff", "100")
                    .with("bridge.delivery.max-backoff", "400")
                    .with("bridge.delivery.dead-letter-after", "1000").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> smtp.accepted().size() == 2);
                await().atMost(Duration.ofSeconds(5)).until(() -> agent.bean("deadLetters", DeadLetters.class).count("email") == 1);
            }
            assertThat(smtp.accepted().get(0)).contains(A);
            assertThat(smtp.accepted().get(1)).contains(C);
            assertThat(smtp.refused()).as("retried within the window").hasSizeGreaterThan(1).allMatch(m -> m.contains(B));
            Path deadLetter = fixture.state().resolve("spool").resolve("email").resolve("dead-letter");
            try (Stream<Path> files = Files.list(deadLetter)) {
                List<Path> dead = files.filter(f -> f.toString().endsWith(".json")).toList();
                assertThat(dead).hasSize(1);
                assertThat(Files.readString(dead.get(0))).contains(B);
            }
            try (Stream<Path> files = Files.list(deadLetter)) {
                assertThat(files.filter(f -> f.toString().endsWith(".reason.txt")).findFirst().orElseThrow())
                        .content().contains("550");
            }
        }
    }

    @Test
    void retryAfterSetsThePauseBeforeTheNextAttempt() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try (WebhookReceiver receiver = WebhookReceiver.start("s")) {
            receiver.script(json -> attempts.incrementAndGet() == 1 ? new Answer(429, "3") : Answer.of(200));
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo(receiver.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 1);
            }
            List<Request> requests = receiver.requests();
            assertThat(requests).hasSize(2);
            assertThat(Duration.between(requests.get(0).receivedAt(), requests.get(1).receivedAt()))
                    .as("429 with Retry-After: 3, while the back-off alone would wait 0.5 s")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(2900));
        }
    }

    @Test
    void aCorruptSpoolFileIsDeadLetteredAndTheLaneGoesOn() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent first = fixture.postingTo(receiver.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 1);
            }
            Path sinkDir;
            try (Stream<Path> dirs = Files.list(fixture.state().resolve("spool"))) {
                sinkDir = dirs.filter(d -> d.getFileName().toString().startsWith("webhook-")).findFirst().orElseThrow();
            }
            Path garbage = sinkDir.resolve("0000000000000000000.json");
            Files.write(garbage, new byte[] {(byte) 0xff, 0x00, 'g', 'a', 'r', 'b', 'a', 'g', 'e'});
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            // One lane: B waits behind the garbage, which has to be moved aside for B to go.
            try (InProcessAgent second = fixture.postingTo(receiver.url()).with("bridge.webhook.concurrency", "1").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 2);
                await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(sinkDir.resolve("dead-letter").resolve(garbage.getFileName())));
            }
            assertThat(receiver.requests()).extracting(Request::eventId).containsExactly(A, B);
            assertThat(garbage).doesNotExist();
            assertThat(sinkDir.resolve("dead-letter").resolve("0000000000000000000.reason.txt")).content().contains("not JSON");
        }
    }

    private static long waitingIn(Path sinkDir) throws java.io.IOException {
        try (Stream<Path> files = Files.list(sinkDir)) {
            return files.filter(f -> f.toString().endsWith(".json")).count();
        }
    }
}
