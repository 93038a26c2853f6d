package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.ShippedJvmFlags;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

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
    private static final int IDLE = 3000;

    @TempDir
    Path work;

    @Test
    void floodsDoNotStopPollingNorDeliveryAndMemoryStaysBounded() throws Exception {
        int port = ApprovalClient.freePort();
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("w")) {
            List<String> events = new ArrayList<>(List.of(Docs.scheduled(FIRST, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm0")));
            imds.serve(Docs.document(1, events.toArray(String[]::new)));
            try (AgentProcess agent = AgentProcess.start("approval-flood", ShippedJvmFlags.shipped(),
                    AgentProcess.env("BRIDGE_APPROVAL_SECRET", SECRET),
                    Map.of("bridge.state.dir", work.resolve("s").toString(), "bridge.imds.url", imds.url(),
                            "bridge.imds.instance-url", imds.instanceUrl(), "bridge.imds.poll-interval", "200",
                            "bridge.webhook.urls", webhook.url(), "bridge.webhook.secret", "w",
                            "bridge.approval.port", Integer.toString(port)), work)) {
                ApprovalClient client = new ApprovalClient(port, SECRET);
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.transitionsOf(FIRST).contains("Scheduled"));
                await().atMost(Duration.ofSeconds(10)).until(() -> signedEventsAnswer(client) == 200);
                long baselineRss = rssKb(agent.pid());
                long baselineFds = fds(agent.pid());

                AtomicLong peakRss = new AtomicLong();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleAtFixedRate(() -> peakRss.accumulateAndGet(rssKb(agent.pid()), Math::max), 0, 100, TimeUnit.MILLISECONDS);
                try {
                    // (a) 1,200 parallel unsigned requests with bodies just under 64 KiB.
                    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
                    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofSeconds(10)).build();
                    byte[] body = new byte[63 * 1024];
                    List<CompletableFuture<?>> requests = new ArrayList<>();
                    for (int i = 0; i < PARALLEL; i++) {
                        requests.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/approvals"))
                                        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
                                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.discarding())
                                .handle((r, e) -> outcomes.merge(r != null ? Integer.toString(r.statusCode()) : "closed", 1, Integer::sum)));
                    }
                    events.add(Docs.scheduled(DURING_BODIES, "Reboot", "Mon, 11 Apr 2022 23:00:00 GMT", "vm0"));
                    imds.serve(Docs.document(2, events.toArray(String[]::new)));
                    CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(DURING_BODIES).contains("Scheduled"));
                    assertThat(agent.isAlive()).as("alive after the body flood; log: " + agent.output().length()).isTrue();
                    assertThat(outcomes.getOrDefault("401", 0)).as("outcomes " + outcomes).isPositive();
                    assertThat(outcomes.keySet()).as("only refusals or closed connections").isSubsetOf("401", "503", "closed");

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
                await().atMost(Duration.ofSeconds(20)).until(() -> signedEventsAnswer(client) == 200);
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

    private static long rssKb(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("VmRSS:")).mapToLong(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElse(0);
        } catch (IOException e) {
            return 0;
        }
    }

    private static long fds(long pid) throws IOException {
        try (Stream<Path> open = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return open.count();
        }
    }
}
