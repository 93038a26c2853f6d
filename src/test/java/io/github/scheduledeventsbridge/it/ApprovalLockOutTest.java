package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stranger who holds every connection the approval port allows (64, idle, each renewed every 10 s as the request
 * deadline closes it, from 64 addresses so that no per-client cap helps) must not keep the operator's signed requests
 * from being answered; and the audit tells what happened: the operator's address on every line, no refusal status
 * for a connection to which nothing was written.
 */
class ApprovalLockOutTest {

    private static final String SECRET = "lock-out-secret-for-tests-0123456789abcdef";
    private static final String EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final int HELD = 64;
    private static final int SIGNED = 48;

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().approvalPort(SECRET);

    @Test
    void signedRequestsAreAnsweredWhileAStrangerHoldsEveryIdleConnection() throws Exception {
        int port = fixture.approvalPort();
        ScriptedImds imds = fixture.imds();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(2, Docs.scheduled(EVENT, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")));
            try (InProcessAgent agent = fixture.start()) {
                ApprovalClient operator = fixture.approvals();
                await().atMost(Duration.ofSeconds(30)).until(() -> operator.events(true).body().contains(EVENT));

                Stranger stranger = new Stranger(port);
                ScheduledExecutorService operatorClock = Executors.newSingleThreadScheduledExecutor();
                Map<String, Integer> outcomes = new TreeMap<>();
                AtomicInteger sent = new AtomicInteger();
                try {
                    stranger.start();
                    await().atMost(Duration.ofSeconds(10)).until(() -> stranger.connects.get() >= HELD);
                    // 48 signed requests over 12 s, a new connection each; the last one an approval.
                    operatorClock.scheduleAtFixedRate(() -> {
                        if (sent.get() >= SIGNED) {
                            return;
                        }
                        String outcome;
                        try {
                            outcome = Integer.toString(sent.get() == SIGNED - 1
                                    ? operator.approve("{\"EventId\":\"" + EVENT + "\"}").statusCode()
                                    : operator.events(true).statusCode());
                        } catch (RuntimeException e) {
                            outcome = "no answer: " + e.getMessage();
                        }
                        synchronized (outcomes) {
                            outcomes.merge(outcome, 1, Integer::sum);
                        }
                        sent.incrementAndGet();
                    }, 0, 250, TimeUnit.MILLISECONDS);
                    await().atMost(Duration.ofSeconds(90)).until(() -> sent.get() >= SIGNED);
                } finally {
                    operatorClock.shutdownNow();
                    stranger.stop();
                }
                assertThat(stranger.connects.get()).as("the stranger kept its connections").isGreaterThan(2 * HELD);
                assertThat(outcomes).as("every signed request answered").isEqualTo(Map.of("200", SIGNED));
                assertThat(imds.startRequests()).hasSize(1);
            }
            assertThat(log.text()).contains("Approval from 127.0.0.1 for [" + EVENT + "]: approved")
                    .doesNotContain("Approval from ?").doesNotContain("refused with 503")
                    .containsPattern("Approval connection from 127\\.0\\.\\d+\\.\\d+ closed without an answer");
        }
    }

    /**
     * Holds {@value #HELD} idle connections at all times: one closed by the agent is replaced at once, and each is
     * renewed after 10 s anyway; every connection from another address (127.0.1.1, 127.0.1.2, …).
     */
    private static final class Stranger {
        final AtomicInteger connects = new AtomicInteger();
        private final int port;
        private final Thread thread;
        private volatile boolean running = true;

        Stranger(int port) {
            this.port = port;
            this.thread = new Thread(this::hold, "stranger");
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(10_000);
        }

        private void hold() {
            ArrayDeque<SocketChannel> held = new ArrayDeque<>();
            try (Selector selector = Selector.open()) {
                while (held.size() < HELD) {
                    held.add(connect(selector));
                }
                long renewEvery = TimeUnit.SECONDS.toNanos(10) / HELD;
                long nextRenewal = System.nanoTime() + renewEvery;
                while (running) {
                    selector.select(10);
                    for (SelectionKey key : selector.selectedKeys()) {
                        SocketChannel channel = (SocketChannel) key.channel();
                        if (readsEnd(channel)) {
                            key.cancel();
                            channel.close();
                            held.remove(channel);
                            held.add(connect(selector));
                        }
                    }
                    selector.selectedKeys().clear();
                    if (System.nanoTime() - nextRenewal >= 0) {
                        held.poll().close();
                        held.add(connect(selector));
                        nextRenewal += renewEvery;
                    }
                }
                for (SocketChannel channel : held) {
                    channel.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private SocketChannel connect(Selector selector) throws IOException {
            int n = connects.getAndIncrement();
            SocketChannel channel = SocketChannel.open();
            channel.bind(new InetSocketAddress("127.0." + (1 + n / 250 % 250) + "." + (1 + n % 250), 0));
            channel.connect(new InetSocketAddress("127.0.0.1", port));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            return channel;
        }

        private static boolean readsEnd(SocketChannel channel) {
            try {
                return channel.read(ByteBuffer.allocate(256)) < 0;
            } catch (IOException reset) {
                return true;
            }
        }
    }
}
