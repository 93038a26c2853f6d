package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.RawSockets;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stranger without a login, from 32 loopback addresses (one would meet the per-client share by accident), pipelines
 * thousands of anonymous liveness probes on each connection and never reads the answers, reconnecting whenever the
 * agent closes one. Meanwhile the liveness probe a kubelet or Docker sends and the operator's logged-in scrape are
 * each answered within 5 s (their timeouts), every time.
 */
class ManagementProbeFloodTest {

    private static final String USER = "operator";
    private static final String PASSWORD = "flood-test-Pa55word-7c1e";
    private static final int ADDRESSES = 32;
    private static final int PIPELINED = 10_000;
    private static final Duration PATIENCE = Duration.ofSeconds(5);
    private static final int ASKED = 5;
    private static final String PROBE = "GET /observe/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    private static final String SCRAPE = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic "
            + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8))
            + "\r\nConnection: close\r\n\r\n";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds()
            .with("bridge.management.username", USER)
            .with("bridge.management.password", PASSWORD);

    @Test
    void probesAndLoggedInScrapesAreAnsweredWhileStrangersPipelineProbesUnread() throws Exception {
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(1));
        try (InProcessAgent agent = fixture.start()) {
            int port = agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> RawSockets.exchange(port, PROBE, PATIENCE).startsWith("HTTP/1.1 200"));

            AtomicBoolean flooding = new AtomicBoolean(true);
            CountDownLatch stopped = new CountDownLatch(1);
            AtomicLong connections = new AtomicLong();
            AtomicLong sent = new AtomicLong();
            Set<Socket> open = ConcurrentHashMap.newKeySet();
            ExecutorService flooders = Executors.newFixedThreadPool(ADDRESSES);
            List<Future<?>> floods = new ArrayList<>();
            List<String> answers = new ArrayList<>();
            long slowest = 0;
            try {
                for (int i = 0; i < ADDRESSES; i++) {
                    String source = "127.0.0." + (2 + i);
                    floods.add(flooders.submit(() -> flood(source, port, flooding, stopped, open, connections, sent)));
                }
                // The flood is under way: every address connected and sent its first batch.
                await().atMost(Duration.ofSeconds(30)).until(() -> connections.get() >= ADDRESSES
                        && sent.get() >= ADDRESSES * 1_000L);
                for (int i = 0; i < ASKED; i++) {
                    for (String request : List.of(PROBE, SCRAPE)) {
                        long asking = System.nanoTime();
                        String answer;
                        try {
                            answer = RawSockets.exchange(port, request, PATIENCE);
                        } catch (IOException e) {
                            answer = e.toString();
                        }
                        long took = System.nanoTime() - asking;
                        slowest = Math.max(slowest, took);
                        String status = answer.isEmpty() ? "closed without an answer" : answer.lines().findFirst().orElse("");
                        answers.add((request == PROBE ? "probe " : "scrape ") + status
                                + (took > PATIENCE.toNanos() ? " (late)" : ""));
                    }
                }
            } finally {
                flooding.set(false);
                stopped.countDown();
                open.forEach(ManagementProbeFloodTest::closeQuietly);
                flooders.shutdown();
                assertThat(flooders.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
            System.out.printf("probe flood from %d addresses: %d connections, %d requests sent, slowest answer %d ms, %s%n",
                    ADDRESSES, connections.get(), sent.get(), TimeUnit.NANOSECONDS.toMillis(slowest), answers);
            assertThat(answers).as("each within %s", PATIENCE).hasSize(2 * ASKED)
                    .allSatisfy(a -> assertThat(a).matches("(probe|scrape) HTTP/1.1 200 OK"));
        }
    }

    /** Connects from {@code source} and pipelines probes without reading; connects again when the agent closes. */
    private static Void flood(String source, int port, AtomicBoolean flooding, CountDownLatch stopped, Set<Socket> open, AtomicLong connections,
                              AtomicLong sent) {
        byte[] batch = "GET /observe/health/live HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1_000).getBytes(StandardCharsets.US_ASCII);
        while (flooding.get()) {
            Socket socket = new Socket();
            open.add(socket);
            try {
                socket.bind(new InetSocketAddress(source, 0));
                socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                connections.incrementAndGet();
                OutputStream out = socket.getOutputStream();
                for (int n = 0; n < PIPELINED && flooding.get(); n += 1_000) {
                    out.write(batch); // blocks once the agent stops reading: this client reads nothing
                    sent.addAndGet(1_000);
                }
                // Everything sent: one more probe every 100 ms, never reading, until a write finds the connection closed.
                byte[] one = "GET /observe/health/live HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                while (!stopped.await(100, TimeUnit.MILLISECONDS)) {
                    out.write(one);
                    sent.incrementAndGet();
                }
            } catch (IOException closedByTheAgentOrTheTest) {
                // connect again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } finally {
                closeQuietly(socket);
                open.remove(socket);
            }
        }
        return null;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
