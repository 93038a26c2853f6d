package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.github.scheduledeventsbridge.testing.RawSockets.exchange;
import static io.github.scheduledeventsbridge.testing.RawSockets.readOrReset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The management port is hostile input too (on 0.0.0.0 with credentials, and any local process can reach it):
 * idle and slow clients over real sockets, beyond {@code bridge.management.max-connections}, neither keep a file
 * descriptor each nor lock out the liveness probe that systemd, Kubernetes or a load balancer depends on.
 */
class ManagementPortLimitsTest {

    private static final int CAP = 16;
    private static final String PROBE = "GET /observe/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    private static final Duration PROBE_PATIENCE = Duration.ofSeconds(3);

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds()
            .with("bridge.management.max-connections", String.valueOf(CAP));
    private int port;
    private final List<Socket> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        fixture.imds().serve(Docs.document(1));
        port = fixture.start().managementPort();
        assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200");
    }

    @Test
    void idleConnectionsBeyondTheCapAreClosedOldestFirst() throws Exception {
        for (int i = 0; i < 3 * CAP; i++) {
            stall("");
        }
        // Without the cap Jetty kept all 48 for its 30 s idle timeout, one descriptor each.
        await().atMost(Duration.ofSeconds(10)).until(() -> stillOpen(clients) <= CAP);
        // Jetty opens accepted connections on pool threads, so "oldest" is by a few places at most: the first CAP are
        // gone, the newest one stays.
        assertThat(stillOpen(clients.subList(0, CAP))).as("the oldest ones closed").isZero();
        assertThat(stillOpen(clients.subList(clients.size() - 1, clients.size()))).as("the newest one kept").isOne();
        assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200");
    }

    @Test
    void slowAndIdleClientsBeyondTheCapDoNotLockTheProbeOut() throws Exception {
        for (int i = 0; i < 10 * CAP; i++) {
            stall(i % 2 == 0 ? "GET /metrics HTTP/1.1\r\nHost: x\r\n" : "");
        }
        for (int i = 0; i < 3; i++) {
            assertThat(exchange(port, PROBE, PROBE_PATIENCE)).startsWith("HTTP/1.1 200").contains("UP");
        }
    }

    /**
     * At the cap the network with the most connections gives one up: a stranger's idle connections from 32 loopback
     * addresses (within the per-client share each) push out each other, not the older ones of a client on another
     * network (this machine's own non-loopback address, still talking over loopback).
     */
    @Test
    void atTheCapTheBusiestNetworkGivesUpItsOldestIdleConnection() throws Exception {
        String elsewhere = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(nic -> Collections.list(nic.getInetAddresses()).stream())
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .map(InetAddress::getHostAddress).findFirst()
                .orElseThrow(() -> new AssertionError("this test needs an IPv4 address other than loopback on this machine"));
        List<Socket> other = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            other.add(fixture.closeAfter(RawSockets.stallFrom(elsewhere, port, "")));
        }
        clients.addAll(other);
        List<Socket> stranger = new ArrayList<>();
        for (int i = 0; i < 3 * CAP; i++) {
            stranger.add(fixture.closeAfter(RawSockets.stallFrom("127.0.0." + (2 + i % 32), port, "")));
        }
        clients.addAll(stranger);
        await().atMost(Duration.ofSeconds(10)).until(() -> stillOpen(clients) <= CAP);
        assertThat(stillOpen(other)).as("the other network's connections, the oldest of all").isEqualTo(3);
        assertThat(stillOpen(stranger.subList(0, CAP))).as("the stranger's oldest").isZero();
    }

    /** A connection that sends {@code start} and then nothing more, closed after the test. */
    private void stall(String start) throws IOException {
        clients.add(fixture.closeAfter(RawSockets.stall(port, start)));
    }

    private static long stillOpen(List<Socket> sockets) {
        return sockets.stream().filter(socket -> RawSockets.stillOpen(socket, Duration.ofMillis(1))).count();
    }
}
