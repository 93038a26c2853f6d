package io.github.scheduledeventsbridge.it;

import com.sun.net.httpserver.HttpServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.Azurite;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Azure-side failures of the approval queue, played by a JDK server on loopback: each is one clear line, then the
 * reader backs off (far fewer requests than ticks) while the agent goes on polling IMDS.
 */
class ApprovalQueueFaultsTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";

    enum Fault {
        FORBIDDEN("HTTP 403 AuthorizationPermissionMismatch", "has no role allowing this on the queue"),
        QUEUE_MISSING("HTTP 404 QueueNotFound", "the queue does not exist"),
        SERVER_ERROR("HTTP 500 InternalError", "the queue service is failing or busy"),
        BUSY_WITH_RETRY_AFTER("HTTP 503 ServerBusy", "Retry-After 30 s"),
        HUNG("no answer within 1000 ms", "trying again in"),
        NO_TOKEN("No managed identity token for https://storage.azure.com/", "Identity not found");

        final String line;
        final String detail;

        Fault(String line, String detail) {
            this.line = line;
            this.detail = detail;
        }
    }

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(Fault.class)
    void eachFailureIsOneClearLineAndBacksOffWhileTheAgentPollsOn(Fault fault) throws Exception {
        AtomicInteger requests = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        HttpServer queue = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        queue.setExecutor(Executors.newCachedThreadPool());
        queue.createContext("/", exchange -> {
            try (exchange) {
                requests.incrementAndGet();
                switch (fault) {
                    case HUNG -> release.await();
                    case FORBIDDEN -> error(exchange, 403, "AuthorizationPermissionMismatch");
                    case QUEUE_MISSING -> error(exchange, 404, "QueueNotFound");
                    case SERVER_ERROR -> error(exchange, 500, "InternalError");
                    case BUSY_WITH_RETRY_AFTER -> {
                        exchange.getResponseHeaders().add("Retry-After", "30");
                        error(exchange, 503, "ServerBusy");
                    }
                    default -> error(exchange, 200, "unexpected");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        queue.start();
        try (ScriptedImds imds = new ScriptedImds();
             ImdsSimulator identity = new ImdsSimulator(ImdsSimulator.Options.defaults()).start();
             LogCapture log = LogCapture.install()) {
            identity.failTokens(fault == Fault.NO_TOKEN ? 400 : 0);
            imds.serve(Docs.document(1));
            InProcessAgent.Builder builder = InProcessAgent.builder(work.resolve("state")).imds(imds)
                    .with("bridge.imds.instance-url", imds.instanceUrl("vm1"))
                    .with("bridge.imds.identity-url", identity.identityTokenUri().toString())
                    .with("bridge.approval.secret", SECRET)
                    .with("bridge.approval.http.enabled", "false")
                    .with("bridge.approval.queue.url", "http://127.0.0.1:" + queue.getAddress().getPort() + "/acct/approve-vm1")
                    .with("bridge.approval.queue.poll-interval", "200")
                    .with("bridge.approval.queue.timeout", "1000");
            if (fault != Fault.NO_TOKEN) {
                builder.with("bridge.approval.queue.credential", "connection-string")
                        .with("bridge.approval.queue.connection-string", "AccountName=acct;AccountKey=" + Azurite.KEY);
            }
            try (InProcessAgent agent = builder.start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> log.text().contains(fault.line));
                int polls = imds.polls();
                await().atMost(Duration.ofSeconds(30)).until(() -> imds.polls() > polls + 10); // 10 × 200 ms at least
                assertThat(log.text()).contains(fault.detail).doesNotContain(Azurite.KEY);
                assertThat(log.lines().stream().filter(l -> l.contains(fault.line)).count()).as("said once").isEqualTo(1);
                // Backing off: 200, 400, 800, 1600 ms… (30 s after a Retry-After), not one request a tick.
                assertThat(fault == Fault.NO_TOKEN ? identity.tokensServed() : requests.get()).isLessThanOrEqualTo(6);
            }
        } finally {
            release.countDown();
            queue.stop(0);
        }
    }

    private static void error(com.sun.net.httpserver.HttpExchange exchange, int status, String code) throws java.io.IOException {
        byte[] body = ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code + "</Code><Message>m</Message></Error>")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("x-ms-error-code", code);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }
}
