package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.github.scheduledeventsbridge.testing.RawSockets.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The limits every listening port shares (one connection policy), checked on each port over real sockets: idle
 * connections beyond the caps (per client and in all), a body that trickles in, headers past 8 KiB. Strangers
 * connect from 127.0.0.2 and up, the port's own client (probe, operator) from 127.0.0.1.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PortLimitsTest {

    private static final String SECRET = "port-limits-secret-for-tests-0123456789";
    private static final Duration SLACK = Duration.ofSeconds(4);

    /**
     * Each port with its cap, its whole-request deadline, a request line with a body (read by the approval API and
     * the simulator; the drain signal and, without credentials, the management port take none and answer at once),
     * and what its own client is answered (the drain signal serves or drains, as the simulated events go).
     */
    enum Port {
        APPROVAL(8, Duration.ofMillis(3000), "POST /api/v1/approvals", true, "HTTP/1.1 200"),
        DRAIN(8, Duration.ofMillis(3000), "POST /", false, "HTTP/1.1 (200|503)"),
        MANAGEMENT(8, Duration.ofSeconds(10), "POST /metrics", false, "HTTP/1.1 200"),
        SIMULATOR(64, Duration.ofSeconds(10), "POST /metadata/scheduledevents?api-version=2020-07-01", true, "HTTP/1.1 200");

        final int cap;
        final Duration requestTimeout;
        final String bodyRequestLine;
        final boolean readsBody;
        final String answered;

        Port(int cap, Duration requestTimeout, String bodyRequestLine, boolean readsBody, String answered) {
            this.cap = cap;
            this.requestTimeout = requestTimeout;
            this.bodyRequestLine = bodyRequestLine;
            this.readsBody = readsBody;
            this.answered = answered;
        }

        int perClient() {
            return Math.max(4, cap / 4);
        }
    }

    private InProcessAgent agent;
    private int approvalPort;

    @BeforeAll
    void start(@TempDir Path state) throws Exception {
        approvalPort = FreePorts.unused();
        agent = InProcessAgent.builder(state)
                .with("bridge.simulator.enabled", "true")
                .with("bridge.approval.secret", SECRET)
                .with("bridge.approval.host", "127.0.0.1")
                .with("bridge.approval.port", Integer.toString(approvalPort))
                .with("bridge.approval.max-connections", "8")
                .with("bridge.approval.request-timeout", "3000")
                .with("bridge.drain.host", "127.0.0.1")
                .with("bridge.drain.port", "0")
                .with("bridge.drain.max-connections", "8")
                .with("bridge.drain.request-timeout", "3000")
                .with("bridge.management.port", "0")
                .with("bridge.management.max-connections", "8")
                .start();
        await().atMost(Duration.ofSeconds(30)).until(() -> port(Port.MANAGEMENT) > 0);
    }

    @AfterAll
    void stop() {
        agent.close();
    }

    @ParameterizedTest
    @EnumSource(Port.class)
    void idleConnectionsBeyondTheCapsCloseTheOldestAndTheOwnClientIsAnswered(Port port) throws Exception {
        List<Socket> oneClient = new ArrayList<>();
        List<Socket> many = new ArrayList<>();
        try {
            for (int i = 0; i < port.perClient() + 2; i++) {
                oneClient.add(RawSockets.stallFrom("127.0.0.2", port(port), ""));
            }
            await().atMost(SLACK).until(() -> open(oneClient) <= port.perClient());
            assertThat(RawSockets.stillOpen(oneClient.get(0), Duration.ofMillis(50))).as("that client's oldest").isFalse();
            assertThat(RawSockets.stillOpen(oneClient.get(oneClient.size() - 1), Duration.ofMillis(50))).as("its newest").isTrue();
            closeAll(oneClient);

            for (int i = 0; i < port.cap + 4; i++) {
                many.add(RawSockets.stallFrom("127.0.1." + (i + 1), port(port), ""));
            }
            await().atMost(SLACK).until(() -> open(many) <= port.cap);
            assertThat(RawSockets.stillOpen(many.get(many.size() - 1), Duration.ofMillis(50))).as("the newest").isTrue();
            assertThat(RawSockets.exchangeFrom("127.0.0.1", port(port), ownRequest(port), SLACK)).matches("(?s)" + port.answered + " .*");
        } finally {
            closeAll(oneClient);
            closeAll(many);
        }
    }

    @ParameterizedTest
    @EnumSource(Port.class)
    void aBodyThatTricklesInIsClosedAtTheRequestDeadline(Port port) throws Exception {
        try (Socket slow = RawSockets.stallFrom("127.0.0.3", port(port), port.bodyRequestLine
                + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")) {
            long start = System.nanoTime();
            OutputStream out = slow.getOutputStream();
            ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
            trickle.scheduleAtFixedRate(() -> {
                try {
                    out.write(' ');
                    out.flush();
                } catch (IOException closed) {
                    throw new IllegalStateException(closed); // ends the schedule
                }
            }, 200, 200, TimeUnit.MILLISECONDS);
            try {
                slow.setSoTimeout((int) port.requestTimeout.plus(SLACK).toMillis());
                String answer = readAll(slow.getInputStream());
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                if (!port.readsBody) {
                    assertThat(answer).as("no body is taken there: answered at once").matches("(?s)HTTP/1.1 4\\d\\d .*");
                } else {
                    assertThat(answer).as("nothing is answered to a request that never arrived whole").isEmpty();
                    assertThat(took).as("closed at the deadline, not before").isGreaterThanOrEqualTo(port.requestTimeout.minusMillis(100));
                }
                assertThat(took).isLessThan(port.requestTimeout.plus(SLACK));
            } finally {
                trickle.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Port.class)
    void headersPast8KiBAreRefusedWith431AndLeaveNoLinePerRequest(Port port) throws Exception {
        try (LogCapture log = LogCapture.install()) {
            for (int i = 0; i < 20; i++) {
                String answer = RawSockets.exchangeFrom("127.0.0.4", port(port), "GET / HTTP/1.1\r\nHost: x\r\nX-Padding: "
                        + "a".repeat(9 * 1024) + "\r\n\r\n", SLACK);
                assertThat(answer).startsWith("HTTP/1.1 431").contains("application/json");
                assertThat(RawSockets.exchangeFrom("127.0.0.4", port(port), "GET /" + "a".repeat(9 * 1024)
                        + " HTTP/1.1\r\nHost: x\r\n\r\n", SLACK)).startsWith("HTTP/1.1 414");
            }
            // Any client may send these as often as it likes: the approval audit's 20 lines a minute, nothing per request.
            assertThat(log.lines().stream().filter(l -> l.contains("too large") || l.contains("too long")))
                    .hasSizeLessThanOrEqualTo(20).noneMatch(l -> l.contains("is too large"));
        }
        assertThat(RawSockets.exchangeFrom("127.0.0.1", port(port), ownRequest(port), SLACK)).matches("(?s)" + port.answered + " .*");
    }

    private int port(Port port) {
        return switch (port) {
            case APPROVAL -> approvalPort;
            case DRAIN -> agent.bean("drainSignal", DrainSignal.class).port();
            case MANAGEMENT -> agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
            case SIMULATOR -> agent.bean("imdsSimulator", ImdsSimulator.class).port();
        };
    }

    /** What the port's own client asks: a signed read, a probe, a scrape of the liveness, an IMDS poll. */
    private static String ownRequest(Port port) {
        return switch (port) {
            case APPROVAL -> {
                String ts = ApprovalClient.now();
                yield "GET /api/v1/events HTTP/1.1\r\nHost: x\r\nX-Bridge-Timestamp: " + ts + "\r\nX-Bridge-Signature: "
                        + ApprovalClient.sign(SECRET, ts, new byte[0]) + "\r\n\r\n";
            }
            case DRAIN -> "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case MANAGEMENT -> "GET /observe/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case SIMULATOR -> "GET /metadata/scheduledevents?api-version=2020-07-01 HTTP/1.1\r\nHost: x\r\nMetadata: true\r\n"
                    + "Connection: close\r\n\r\n";
        };
    }

    private static long open(List<Socket> sockets) {
        return sockets.stream().filter(s -> RawSockets.stillOpen(s, Duration.ofMillis(5))).count();
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }
}
