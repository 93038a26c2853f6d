package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import io.github.scheduledeventsbridge.testing.ProcessResources;
import io.github.scheduledeventsbridge.testing.RawSockets;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.github.scheduledeventsbridge.testing.ProcessResources.fds;
import static io.github.scheduledeventsbridge.testing.ProcessResources.rssKb;
import static io.github.scheduledeventsbridge.testing.RawSockets.exchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged agent with the shipped JVM flags under floods on its drain port (what a load balancer's probe
 * asks): hundreds of slow clients, thousands of idle connections, then a flood of whole requests from 16 clients
 * at once. Throughout, a probe is answered within 3 s, and the agent's file descriptors and memory stay bounded.
 */
class DrainFloodIT {

    private static final Duration PROBE_PATIENCE = Duration.ofSeconds(3);
    /** 3,000 idle connections, fewer when this JVM may not open that many files. */
    private static final int IDLE = (int) Math.min(3000, ProcessResources.openFilesLimit() - 500);

    @TempDir
    Path work;

    @Test
    void slowIdleAndFloodingClientsDoNotStopTheProbeAndResourcesStayBounded() throws Exception {
        int port = FreePorts.unused();
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(1));
            try (AgentProcess agent = startServing("drain-flood", imds, port)) {
                long baselineRss = rssKb(agent.pid()) / 1024;
                long baselineFds = fds(agent.pid());
                long bound = baselineFds + 64 + 16; // the 64 connections the drain port keeps, and some slack
                long peakRss = baselineRss;

                List<Socket> clients = new ArrayList<>();
                try {
                    // (a) 500 slow clients: each sends part of a request and stalls.
                    for (int i = 0; i < 500; i++) {
                        clients.add(open(port, i % 2 == 0 ? "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " : "GE"));
                    }
                    assertThat(probe(port)).as("probe behind 500 slow clients").startsWith("HTTP/1.1 200");
                    assertThat(fds(agent.pid())).as("agent's open files with 500 slow clients").isLessThan(bound);
                    peakRss = Math.max(peakRss, rssKb(agent.pid()) / 1024);

                    // (b) thousands of idle connections on top.
                    for (int i = 0; i < IDLE; i++) {
                        clients.add(open(port, ""));
                    }
                    assertThat(probe(port)).as("probe behind %d idle connections", IDLE).startsWith("HTTP/1.1 200");
                    assertThat(fds(agent.pid())).as("agent's open files with %d idle connections", IDLE).isLessThan(bound);
                    peakRss = Math.max(peakRss, rssKb(agent.pid()) / 1024);
                } finally {
                    for (Socket socket : clients) {
                        socket.close();
                    }
                }

                // (c) 16 clients sending whole requests as fast as they are answered, for 10 s.
                AtomicBoolean flooding = new AtomicBoolean(true);
                AtomicInteger answered = new AtomicInteger();
                ExecutorService flood = Executors.newFixedThreadPool(16);
                try {
                    List<Future<?>> floods = new ArrayList<>();
                    for (int i = 0; i < 16; i++) {
                        floods.add(flood.submit(() -> {
                            while (flooding.get()) {
                                try {
                                    if (exchange(port, DrainPortLimitsTest.PROBE, Duration.ofSeconds(10)).startsWith("HTTP/1.1 200")) {
                                        answered.incrementAndGet();
                                    }
                                } catch (IOException refusedOrReset) {
                                    // the flood may be cut off; the probe below is what must get through
                                }
                            }
                            return null;
                        }));
                    }
                    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (System.nanoTime() < end) {
                        assertThat(probe(port)).as("probe during a request flood").startsWith("HTTP/1.1 200");
                        assertThat(fds(agent.pid())).as("agent's open files during a request flood").isLessThan(bound);
                        peakRss = Math.max(peakRss, rssKb(agent.pid()) / 1024);
                    }
                    flooding.set(false);
                    for (Future<?> f : floods) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    flooding.set(false);
                    flood.shutdownNow();
                }
                System.out.printf("drain flood: %d flood requests answered, baseline RSS %d MB, peak %d MB, baseline fds %d%n",
                        answered.get(), baselineRss, peakRss, baselineFds);
                assertThat(answered.get()).as("the flood was served too").isPositive();
                assertThat(peakRss).as("peak RSS (baseline %d MB)", baselineRss).isLessThan(baselineRss + 48);
                assertThat(agent.isAlive()).isTrue();
                assertThat(agent.output()).doesNotContain("OutOfMemoryError");
            }
        }
    }

    /**
     * The agent out of file descriptors (its limit lowered to a few more than it has open, then more connections than
     * that): accepting fails with "Too many open files", which must cost connections, never the listener itself.
     */
    @Test
    void runningOutOfFileDescriptorsDoesNotStopTheListener() throws Exception {
        int port = FreePorts.unused();
        try (ScriptedImds imds = new ScriptedImds()) {
            imds.serve(Docs.document(1));
            try (AgentProcess agent = startServing("drain-emfile", imds, port)) {
                long limit = fds(agent.pid()) + 8;
                Process prlimit = new ProcessBuilder("prlimit", "--pid", Long.toString(agent.pid()),
                        "--nofile=" + limit + ":" + limit).redirectErrorStream(true).start();
                assertThat(prlimit.waitFor()).as("prlimit").isZero();
                List<Socket> clients = new ArrayList<>();
                try {
                    for (int i = 0; i < 40; i++) {
                        clients.add(open(port, ""));
                    }
                    // The kernel has queued them all; the agent accepts what it can and must fail the rest.
                    await().atMost(Duration.ofSeconds(60)).until(() -> fds(agent.pid()) >= limit - 1);
                } finally {
                    for (Socket socket : clients) {
                        socket.close();
                    }
                }
                java.util.concurrent.atomic.AtomicReference<String> last = new java.util.concurrent.atomic.AtomicReference<>("");
                try {
                    await().atMost(Duration.ofSeconds(60)).until(() -> {
                        try {
                            last.set(probe(port));
                        } catch (IOException e) {
                            last.set(e.toString());
                        }
                        return last.get().startsWith("HTTP/1.1 200");
                    });
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("last probe: " + last.get() + "\nagent:\n" + agent.output(), e);
                }
                assertThat(agent.isAlive()).isTrue();
            }
        }
    }

    /** The packaged agent with the shipped flags and its drain port on {@code port}, once the port answers. */
    private AgentProcess startServing(String name, ScriptedImds imds, int port) throws Exception {
        AgentProcess agent = AgentProcess.start(name, List.of(JvmOptions.argument()), Map.of(),
                Map.of("bridge.state.dir", work.resolve(name).toString(), "bridge.imds.url", imds.url(),
                        "bridge.imds.instance-url", imds.instanceUrl(), "bridge.management.port", "0",
                        "bridge.drain.port", Integer.toString(port)), work);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> probe(port).startsWith("HTTP/1.1 200"));
        return agent;
    }

    /**
     * The load balancer's probe, from an address of its own (as Azure's 168.63.129.16 is): the slow, idle and flooding
     * clients are all 127.0.0.1, and one client's connections beyond its share close that client's own oldest idle one,
     * which may be a probe from that same address.
     */
    private static String probe(int port) throws IOException {
        return RawSockets.exchangeFrom("127.0.0.2", port, DrainPortLimitsTest.PROBE, PROBE_PATIENCE);
    }

    private static Socket open(int port, String start) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        return socket;
    }
}
