package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static io.github.scheduledeventsbridge.testing.RawSockets.exchange;
import static io.github.scheduledeventsbridge.testing.RawSockets.readOrReset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The drain port is open to the network (0.0.0.0 by default) and a load balancer's health probe depends on it:
 * slow, idle and oversized clients over real sockets, with the default limits, and the probe is still answered
 * within a few seconds.
 */
class DrainPortLimitsTest {

    /** What a load balancer's HTTP probe sends. */
    static final String PROBE = "GET / HTTP/1.1\r\nHost: 10.0.0.4\r\nUser-Agent: Load Balancer Agent\r\nConnection: close\r\n\r\n";
    private static final Duration PROBE_PATIENCE = Duration.ofSeconds(3);

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().drainPort();
    private int port;

    @BeforeEach
    void start() throws Exception {
        fixture.imds().serve(Docs.document(1));
        port = fixture.start().drainPort();
        await().atMost(Duration.ofSeconds(20)).until(() -> exchange(port, PROBE, PROBE_PATIENCE).startsWith("HTTP/1.1 200"));
    }

    @Test
    void slowClientsDoNotKeepTheProbeWaiting() throws Exception {
        for (int i = 0; i < 8; i++) {
            stall("GET / HTTP/1.1\r\nHost: x\r\n"); // headers that never end
            stall("GE");                             // a request line that never ends
        }
        for (int i = 0; i < 3; i++) {
            assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200").contains("\"serving\"");
        }
    }

    @Test
    void moreSlowAndIdleClientsThanTheConnectionLimitDoNotLockTheProbeOut() throws Exception {
        for (int i = 0; i < 150; i++) {
            stall(i % 2 == 0 ? "GET / HTTP/1.1\r\nHost: x\r\n" : "");
        }
        for (int i = 0; i < 3; i++) {
            assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void slowAndIdleConnectionsAreClosedAtTheRequestDeadline() throws Exception {
        Socket slow = stall("GET / HTTP/1.1\r\nHost: x\r\n");
        Socket idle = stall("");
        long start = System.nanoTime();
        for (Socket socket : List.of(slow, idle)) {
            socket.setSoTimeout(15_000);
            assertThat(readOrReset(socket.getInputStream())).as("closed by the agent").isEqualTo(-1);
        }
        // bridge.drain.request-timeout is 5 s by default; 8 s leaves room for a loaded machine.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
    }

    @Test
    void headersPast8KiBAreRefusedWithoutReadingOn() throws Exception {
        String answer = exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Padding: " + "a".repeat(16 * 1024) + "\r\n\r\n",
                PROBE_PATIENCE);
        assertThat(answer).startsWith("HTTP/1.1 431").contains("application/json");
        assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200");
    }

    /** A connection that sends {@code start} and then nothing more, closed after the test. */
    private Socket stall(String start) throws IOException {
        return fixture.closeAfter(RawSockets.stall(port, start));
    }
}
