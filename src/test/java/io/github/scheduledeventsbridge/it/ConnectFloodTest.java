package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.RawSockets;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The probes a load balancer, systemd or Kubernetes depends on (the drain signal's {@code GET /}, the management
 * port's liveness), asked every 100 ms while other clients connect as fast as loopback lets them (each connection
 * held briefly, then reset, from rotating source addresses): every probe is answered, with 200.
 */
class ConnectFloodTest {

    private static final int FLOODERS = 4;
    private static final Duration FLOOD = Duration.ofSeconds(8);
    /**
     * A probe's SYN that meets the full accept queue is retried by the kernel after 1 s and again 2 s later
     * (docs/security.md: late, not lost): 7 s leaves it both retries, which a loaded machine needed.
     */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(7);

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().drainPort();

    @ParameterizedTest
    @ValueSource(strings = {"drain", "management"})
    void everyProbeIsAnsweredDuringAConnectFlood(String port) throws Exception {
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(1));
        try (InProcessAgent agent = fixture.start()) {
            String probe = port.equals("drain") ? "GET / HTTP/1.1\r\nHost: 10.0.0.4\r\nConnection: close\r\n\r\n"
                    : "GET /observe/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> RawSockets.exchange(
                    number(agent, port), probe, Duration.ofSeconds(3)).startsWith("HTTP/1.1 200"));
            int target = number(agent, port);

            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicLong connects = new AtomicLong();
            ExecutorService flooders = Executors.newFixedThreadPool(FLOODERS);
            List<Future<?>> floods = new ArrayList<>();
            for (int f = 0; f < FLOODERS; f++) {
                int flooder = f;
                floods.add(flooders.submit(() -> flood(target, flooder, flooding, connects)));
            }
            Map<String, Integer> probes = new TreeMap<>();
            AtomicLong asked = new AtomicLong();
            AtomicLong slowest = new AtomicLong();
            long start = System.nanoTime();
            // A probe every 100 ms, as a load balancer's would come (but far more often).
            ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor();
            try {
                prober.scheduleAtFixedRate(() -> {
                    String answer;
                    long asking = System.nanoTime();
                    try {
                        answer = RawSockets.exchange(target, probe, PROBE_TIMEOUT);
                    } catch (IOException e) {
                        answer = e.toString();
                    }
                    synchronized (probes) {
                        probes.merge(answer.isEmpty() ? "closed without an answer" : answer.lines().findFirst().orElse(""),
                                1, Integer::sum);
                    }
                    slowest.accumulateAndGet(System.nanoTime() - asking, Math::max);
                    asked.incrementAndGet();
                }, 0, 100, TimeUnit.MILLISECONDS);
                await().atMost(FLOOD.plusSeconds(30)).until(() -> asked.get() >= FLOOD.toMillis() / 100);
            } finally {
                // No new probe, and the one under way finishes (not interrupted) before the figures are read.
                prober.shutdown();
                prober.awaitTermination(30, TimeUnit.SECONDS);
                flooding.set(false);
                for (Future<?> flood : floods) {
                    flood.get(30, TimeUnit.SECONDS);
                }
                flooders.shutdownNow();
            }
            long rate = connects.get() * 1_000_000_000L / Math.max(1, System.nanoTime() - start);
            System.out.printf("connect flood on %s: %d connects/s, probes %s, slowest %d ms%n", port, rate, probes,
                    TimeUnit.NANOSECONDS.toMillis(slowest.get()));
            assertThat(probes).as("probes during %d connects/s", rate).containsOnlyKeys("HTTP/1.1 200 OK");
            assertThat(probes.get("HTTP/1.1 200 OK")).isEqualTo((int) asked.get());
        }
    }

    /** Connects as fast as it can from 127.0.2.x (x by flooder), holds the last 32 connections, resets the older. */
    private static Void flood(int port, int flooder, AtomicBoolean flooding, AtomicLong connects) throws IOException {
        ArrayDeque<Socket> held = new ArrayDeque<>();
        try {
            for (long n = 0; flooding.get(); n++) {
                Socket socket = new Socket();
                socket.setSoLinger(true, 0); // a reset: no TIME_WAIT piling up on either side
                socket.bind(new InetSocketAddress("127.0." + (2 + flooder) + "." + (1 + n % 250), 0));
                try {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    connects.incrementAndGet();
                } catch (IOException refusedOrQueueFull) {
                    socket.close();
                    continue;
                }
                held.add(socket);
                if (held.size() > 32) {
                    held.poll().close();
                }
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
        return null;
    }

    private static int number(InProcessAgent agent, String port) {
        return port.equals("drain") ? agent.bean("drainSignal", DrainSignal.class).port()
                : agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
    }
}
