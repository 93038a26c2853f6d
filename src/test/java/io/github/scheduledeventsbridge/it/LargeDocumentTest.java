package io.github.scheduledeventsbridge.it;

import com.sun.net.httpserver.HttpServer;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** An oversized IMDS answer is a failed poll, not a crash; a huge but allowed document is handled in bounded time. */
class LargeDocumentTest {

    private static final String A = "AAAAAAAA-7777-0000-0000-00000000000A";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    @ParameterizedTest(name = "chunked={0}")
    @ValueSource(booleans = {false, true})
    void aTenMegabyteDocumentIsAFailedPollAndPollingGoesOn(boolean chunked) throws Exception {
        String tenMegabytes = Docs.document(2, Docs.scheduled(A, "Reboot", NOT_BEFORE, "vm")
                .replace("\"test event\"", "\"" + "x".repeat(10 * 1024 * 1024) + "\""));
        fixture.imds().chunked(chunked);
        fixture.imds().serve(tenMegabytes);
        try (InProcessAgent agent = fixture.start()) {
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> backoff.consecutiveFailures() >= 3);
            assertThat(backoff.lastFailureKind()).isEqualTo("too-large");
            assertThat(fixture.webhook().requests()).isEmpty();

            fixture.imds().serve(Docs.document(3, Docs.scheduled(A, "Reboot", NOT_BEFORE, "vm")));
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.webhook().transitionsOf(A).size() == 1);
            assertThat(backoff.consecutiveFailures()).isZero();
        }
    }

    @Test
    void anOversizedAnswerIsReadOnlyUpToTheLimitNeverBufferedWhole() throws Exception {
        // 64 MB, chunked, made as it is written: what the agent does not read, the server cannot send (only the
        // socket buffers, a few MB on loopback, hold more than the 1 MB limit).
        long size = 64L * 1024 * 1024;
        AtomicLong firstAnswerSent = new AtomicLong(-1);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/metadata/scheduledevents", exchange -> {
            long sent = 0;
            try (exchange; OutputStream out = exchange.getResponseBody()) {
                exchange.sendResponseHeaders(200, 0);
                byte[] chunk = " ".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
                while (sent < size) {
                    out.write(chunk);
                    sent += chunk.length;
                }
            } catch (IOException agentHungUp) {
                // What the test is after.
            } finally {
                firstAnswerSent.compareAndSet(-1, sent);
            }
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/metadata/";
        try (InProcessAgent agent = InProcessAgent.builder(fixture.state()).with("bridge.imds.url", base + "scheduledevents")
                .with("bridge.imds.instance-url", base + "instance/compute").start()) {
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> "too-large".equals(backoff.lastFailureKind()));
            await().atMost(Duration.ofSeconds(30)).until(() -> firstAnswerSent.get() >= 0);
            assertThat(firstAnswerSent.get()).as("bytes the first answer got out before the agent hung up")
                    .isLessThan(size / 2);
        } finally {
            server.stop(0);
            ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
        }
    }

    @Test
    void tenThousandEventsAreAllRecordedAndDeliveredInBoundedTime() throws Exception {
        int count = 10_000;
        String[] events = IntStream.range(0, count)
                .mapToObj(i -> Docs.scheduled(String.format("EEEEEEEE-0000-0000-0000-%012d", i), "Freeze", NOT_BEFORE, "vm"))
                .toArray(String[]::new);
        fixture.imds().serve(Docs.document(2, events));
        long started = System.nanoTime();
        try (InProcessAgent agent = fixture.builder()
                .with("bridge.imds.max-document-size", Integer.toString(8 * 1024 * 1024)).start()) {
            TransitionJournal journal = agent.bean("journal", TransitionJournal.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> journal.lastDocument().events().size() == count
                    && journal.outbox().isEmpty());
            long recorded = System.nanoTime();
            await().atMost(Duration.ofSeconds(120)).until(() -> fixture.webhook().delivered().size() >= count);
            System.out.printf("LargeDocumentTest: %d events recorded and spooled in %d ms, delivered in %d ms%n", count,
                    (recorded - started) / 1_000_000, (System.nanoTime() - started) / 1_000_000);

            // Idle polls of the same 10,000-event document (every 200 ms) must not keep a core busy.
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            int served = fixture.imds().documentsServed();
            long cpuBefore = os.getProcessCpuTime();
            long wallBefore = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.imds().documentsServed() >= served + 20);
            double share = (double) (os.getProcessCpuTime() - cpuBefore) / (System.nanoTime() - wallBefore);
            System.out.printf("LargeDocumentTest: idle polling of %d events uses %.0f %% of a core%n", count, share * 100);
        }
        Set<String> delivered = fixture.webhook().delivered().stream().map(WebhookReceiver.Request::eventId).collect(Collectors.toSet());
        assertThat(delivered).as("nothing lost").hasSize(count);
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates();
    }
}
