package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import io.github.scheduledeventsbridge.testing.ProcessResources;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.github.scheduledeventsbridge.testing.ProcessResources.fds;
import static io.github.scheduledeventsbridge.testing.ProcessResources.rssKb;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged agent with the shipped JVM flags (96 MB heap, exit on OOM) under two floods on its approval port:
 * 1,200 parallel unsigned requests with 63 KiB bodies, then thousands of idle connections. It stays alive, keeps
 * polling and delivering, its memory and file descriptors stay bounded, and it answers again once they stop.
 */
class ApprovalFloodIT {

    private static final String SECRET = "flood-secret-for-tests-0123456789abcdef-xyz";
    private static final String FIRST = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String DURING_BODIES = "11111111-AFDC-4513-B24B-AA5F13A16123";
    private static final String DURING_IDLE = "22222222-AFDC-4513-B24B-AA5F13A16123";
    private static final int PARALLEL = 1200;
    /** 3,000 idle connections, fewer when this JVM may not open that many files. */
    private static final int IDLE = (int) Math.min(3000, ProcessResources.openFilesLimit() - PARALLEL - 500);

    @TempDir
    Path work;

    @Test
    void floodsDoNotStopPollingNorDeliveryAndMemoryStaysBounded() throws Exception {
        int port = FreePorts.unused();
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("w")) {
            List<String> events = new ArrayList<>(List.of(Docs.scheduled(FIRST, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm0")));
            imds.serve(Docs.document(1, events.toArray(String[]::new)));
            try (AgentProcess agent = AgentProcess.start("approval-flood", List.of(JvmOptions.argument()),
                    AgentProcess.env("BRIDGE_APPROVAL_SECRET", SECRET),
                    Map.of("bridge.state.dir", work.resolve("s").toString(), "bridge.imds.url", imds.url(),
                            "bridge.imds.instance-url", imds.instanceUrl(), "bridge.imds.poll-interval", "200",
                            "bridge.webhook.urls", webhook.url(), "bridge.webhook.secret", "w",
                            "bridge.approval.port", Integer.toString(port)), work)) {
                ApprovalClient client = new ApprovalClient(port, SECRET);
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.transitionsOf(FIRST).contains("Scheduled"));
                await().atMost(Duration.ofSeconds(60)).until(() -> signedEventsAnswer(client) == 200);
                long baselineRss = rssKb(agent.pid());
                long baselineFds = fds(agent.pid());

                AtomicLong peakRss = new AtomicLong();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleAtFixedRate(() -> peakRss.accumulateAndGet(rssKb(agent.pid()), Math::max), 0, 100, TimeUnit.MILLISECONDS);
                try {
                    // (a) 1,200 parallel unsigned requests with bodies just under 64 KiB, all in flight at once: each
                    // sends its headers and all but the last byte of its body, then waits.
                    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
                    List<Socket> inFlight = java.util.Collections.synchronizedList(new ArrayList<>());
                    byte[] body = new byte[63 * 1024];
                    byte[] head = ("POST /api/v1/approvals HTTP/1.1\r\nHost: agent\r\nContent-Type: application/octet-stream\r\n"
                            + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                    ExecutorService senders = Executors.newFixedThreadPool(32);
                    try {
                        List<Future<?>> sent = new ArrayList<>();
                        for (int i = 0; i < PARALLEL; i++) {
                            sent.add(senders.submit(() -> {
                                Socket socket = new Socket();
                                inFlight.add(socket);
                                try {
                                    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                                    socket.getOutputStream().write(head);
                                    socket.getOutputStream().write(body, 0, body.length - 1);
                                    outcomes.merge("sent", 1, Integer::sum);
                                } catch (IOException e) {
                                    outcomes.merge("closed", 1, Integer::sum);
                                }
                                return null;
                            }));
                        }
                        for (Future<?> f : sent) {
                            f.get(60, TimeUnit.SECONDS);
                        }
                        events.add(Docs.scheduled(DURING_BODIES, "Reboot", "Mon, 11 Apr 2022 23:00:00 GMT", "vm0"));
                        imds.serve(Docs.document(2, events.toArray(String[]::new)));
                        await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(DURING_BODIES).contains("Scheduled"));
                        assertThat(agent.isAlive()).as("alive during the body flood").isTrue();
                        assertThat(fds(agent.pid())).as("agent's open files with %d requests in flight", PARALLEL)
                                .isLessThan(baselineFds + 64 + 40);
                        // The last bytes: the requests still open complete (401, unsigned) or were closed by the agent.
                        for (Socket socket : inFlight) {
                            try {
                                socket.getOutputStream().write(body, 0, 1);
                            } catch (IOException e) {
                                outcomes.merge("closed-before-last-byte", 1, Integer::sum);
                            }
                        }
                    } finally {
                        senders.shutdownNow();
                        for (Socket socket : inFlight) {
                            socket.close();
                        }
                    }
                    assertThat(agent.isAlive()).as("alive after the body flood " + outcomes).isTrue();
                    long peakAfterBodies = peakRss.get() / 1024;
                    System.out.printf("approval flood (a): %s, baseline RSS %d MB, peak %d MB%n", outcomes, baselineRss / 1024, peakAfterBodies);
                    assertThat(peakAfterBodies).as("peak RSS during the body flood").isLessThan(baselineRss / 1024 + 120);

                    // (b) thousands of idle connections: the excess is closed at once, file descriptors stay bounded.
                    List<Socket> idle = new ArrayList<>();
                    try {
                        for (int i = 0; i < IDLE; i++) {
                            Socket socket = new Socket();
                            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                            idle.add(socket);
                        }
                        events.add(Docs.scheduled(DURING_IDLE, "Redeploy", "Mon, 11 Apr 2022 23:30:00 GMT", "vm0"));
                        imds.serve(Docs.document(3, events.toArray(String[]::new)));
                        await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(DURING_IDLE).contains("Scheduled"));
                        long fdsDuringIdleFlood = fds(agent.pid());
                        assertThat(fdsDuringIdleFlood).as("agent's open files with %d idle connections", IDLE)
                                .isLessThan(baselineFds + 64 + 40);
                        assertThat(agent.isAlive()).isTrue();
                    } finally {
                        for (Socket socket : idle) {
                            socket.close();
                        }
                    }
                } finally {
                    sampler.shutdownNow();
                }

                // Recovered: signed requests are answered again, and an approval goes through.
                await().atMost(Duration.ofSeconds(60)).until(() -> signedEventsAnswer(client) == 200);
                assertThat(client.approve("{\"EventId\":\"" + FIRST + "\"}").statusCode()).isEqualTo(200);
                assertThat(imds.startRequests()).hasSize(1);
                long peakMb = peakRss.get() / 1024;
                System.out.printf("approval flood: baseline RSS %d MB, peak %d MB, baseline fds %d%n",
                        baselineRss / 1024, peakMb, baselineFds);
                assertThat(peakMb).as("peak RSS (baseline %d MB)", baselineRss / 1024).isLessThan(baselineRss / 1024 + 120);
                assertThat(agent.output()).doesNotContain("OutOfMemoryError").doesNotContain(SECRET);
                assertThat(agent.output().lines().filter(l -> l.contains("Approval request from")).count())
                        .as("refusals logged, at most 20 lines a minute").isBetween(1L, 40L);
            }
        }
    }

    private static int signedEventsAnswer(ApprovalClient client) {
        try {
            return client.events(true).statusCode();
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
