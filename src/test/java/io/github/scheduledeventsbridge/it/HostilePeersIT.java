package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.HostileHttpReceiver;
import io.github.scheduledeventsbridge.testing.HostileHttpReceiver.Answer;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import io.github.scheduledeventsbridge.testing.RefusingSmtpServer;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sink peers that answer too much or too slowly, against the packaged agent run with the shipped JVM options
 * (packaging/jvm.options: a 96 MB heap that exits on OutOfMemoryError): the agent stays up, the message is retried
 * or delivered by the usual rules, and the next start is fine.
 */
class HostilePeersIT {

    private static final String A = "AAAAAAAA-7777-0000-0000-00000000000A";
    private static final long HUGE = 300L * 1024 * 1024;

    @TempDir
    Path work;

    private Map<String, String> env(ScriptedImds imds, String... more) {
        Map<String, String> env = new LinkedHashMap<>(AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(), "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200", "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_DELIVERY_INITIAL_BACKOFF", "200", "BRIDGE_DELIVERY_MAX_BACKOFF", "500"));
        env.putAll(AgentProcess.env(more));
        return env;
    }

    private AgentProcess start(String name, Map<String, String> env) throws IOException {
        return AgentProcess.start(name, List.of(JvmOptions.argument()), env, Map.of(), work);
    }

    private long spooled() throws IOException {
        Path spool = work.resolve("state").resolve("spool");
        if (!Files.isDirectory(spool)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(spool, 2)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d+\\.json(l)?")).count();
        }
    }

    /** A restart that polls a few times, delivers nothing again, and stays up. */
    private void nextStartIsFine(String name, ScriptedImds imds, Map<String, String> env) throws Exception {
        try (AgentProcess again = start(name, env)) {
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
            assertThat(again.isAlive()).as(again.output()).isTrue();
            assertThat(again.output()).doesNotContain("OutOfMemoryError");
        }
    }

    @Test
    void aWebhookAnsweringHundredsOfMegabytesIsReadOnlyAFewKilobytesDeep() throws Exception {
        // A 300 MB refusal first, then a 300 MB acceptance: the agent keeps the statuses, not the bodies.
        try (ScriptedImds imds = new ScriptedImds();
             HostileHttpReceiver webhook = new HostileHttpReceiver(i -> new Answer.Huge(i == 0 ? 500 : 200, HUGE))) {
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            Map<String, String> env = env(imds, "BRIDGE_WEBHOOK_URLS", webhook.url());
            try (AgentProcess agent = start("huge-webhook-answer", env)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.requests().size() >= 2 || !agent.isAlive());
                await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0 || !agent.isAlive());
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5 || !agent.isAlive());
                assertThat(agent.isAlive()).as(agent.output()).isTrue();
                assertThat(agent.output()).doesNotContain("OutOfMemoryError").contains("HTTP 500");
            }
            assertThat(webhook.requests()).as("retried after the 500, delivered by the 200, never sent again").hasSize(2);
            nextStartIsFine("huge-webhook-answer", imds, env);
            assertThat(webhook.requests()).hasSize(2);
        }
    }

    @Test
    void anEndlessHeaderLineIsAFailedAttemptNotAnOutOfMemoryError() throws Exception {
        try (ScriptedImds imds = new ScriptedImds();
             HostileHttpReceiver webhook = new HostileHttpReceiver(i -> i == 0 ? new Answer.EndlessHeader(HUGE)
                     : new Answer.Plain(200, "ok"))) {
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            Map<String, String> env = env(imds, "BRIDGE_WEBHOOK_URLS", webhook.url());
            try (AgentProcess agent = start("endless-header", env)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.requests().size() >= 2 || !agent.isAlive());
                await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0 || !agent.isAlive());
                assertThat(agent.isAlive()).as(agent.output()).isTrue();
            }
            assertThat(webhook.requests()).hasSize(2);
        }
    }

    @Test
    void anSmtpGreetingOfHundredsOfMegabytesIsAFailedAttemptAndTheMailGoesOutOnceTheServerBehaves() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); RefusingSmtpServer smtp = new RefusingSmtpServer(mail -> false)) {
            smtp.hostileGreetings(2, HUGE, Duration.ZERO);
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            Map<String, String> env = env(imds, "BRIDGE_EMAIL_HOST", "127.0.0.1",
                    "BRIDGE_EMAIL_PORT", Integer.toString(smtp.port()), "BRIDGE_EMAIL_FROM", "bridge@vm.example.com",
                    "BRIDGE_EMAIL_TO", "ops@example.com", "BRIDGE_EMAIL_STARTTLS", "false");
            try (AgentProcess agent = start("huge-smtp-greeting", env)) {
                await().atMost(Duration.ofSeconds(90)).until(() -> !smtp.accepted().isEmpty() || !agent.isAlive());
                await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0 || !agent.isAlive());
                assertThat(agent.isAlive()).as(agent.output()).isTrue();
                assertThat(agent.output()).doesNotContain("OutOfMemoryError");
            }
            assertThat(smtp.connections()).as("two hostile greetings, then the delivery").isEqualTo(3);
            assertThat(smtp.accepted()).singleElement().asString().contains(A);
            nextStartIsFine("huge-smtp-greeting", imds, env);
            assertThat(smtp.accepted()).hasSize(1);
        }
    }

    @Test
    void aBodyTricklingOneByteASecondIsOneAttemptEndedAtItsDeadlineAndTheNextAttemptDelivers() throws Exception {
        try (ScriptedImds imds = new ScriptedImds();
             HostileHttpReceiver webhook = new HostileHttpReceiver(i -> i == 0
                     ? new Answer.Trickle(200, 1_000_000, Duration.ofSeconds(1)) : new Answer.Plain(200, "ok"))) {
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            Map<String, String> env = env(imds, "BRIDGE_WEBHOOK_URLS", webhook.url(),
                    "BRIDGE_DELIVERY_ATTEMPT_TIMEOUT", "3000");
            try (AgentProcess agent = start("trickling-webhook", env)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.requests().size() >= 2);
                await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0);
                assertThat(agent.isAlive()).isTrue();
            }
            HostileHttpReceiver.Request first = webhook.requests().stream().filter(r -> r.index() == 0).findFirst().orElseThrow();
            assertThat(Duration.between(first.received(), first.ended()))
                    .as("the first attempt ends at its 3 s deadline").isBetween(Duration.ofMillis(2500), Duration.ofSeconds(6));
            assertThat(webhook.requests()).hasSize(2);
        }
    }

    @Test
    void sigtermWhileAnAnswerTricklesStopsWithinTheDocumentedTenSeconds() throws Exception {
        try (ScriptedImds imds = new ScriptedImds();
             HostileHttpReceiver webhook = new HostileHttpReceiver(
                     i -> new Answer.Trickle(200, 1_000_000, Duration.ofSeconds(1)))) {
            imds.serve(Docs.document(2, Docs.scheduled(A, "Reboot", "", "vm")));
            Map<String, String> env = env(imds, "BRIDGE_WEBHOOK_URLS", webhook.url());
            AgentProcess agent = start("sigterm-trickling-webhook", env);
            try {
                // The attempt has begun and has had two of its bytes: the lane is inside the read.
                await().atMost(Duration.ofSeconds(60)).until(() -> !webhook.arrivals().isEmpty()
                        && webhook.arrivals().get(0).isBefore(Instant.now().minusSeconds(2)));
                Instant stopping = Instant.now();
                ProcessHandle.of(agent.pid()).orElseThrow().destroy(); // SIGTERM
                int exit = agent.waitForExit(30);
                Duration took = Duration.between(stopping, Instant.now());
                assertThat(took).as("SIGTERM to exit; log:\n" + agent.output()).isLessThanOrEqualTo(Duration.ofSeconds(10));
                assertThat(exit).isNotEqualTo(137);
                assertThat(agent.output()).contains("kept in the spool, delivered after the next start");
            } finally {
                agent.close();
            }
            assertThat(spooled()).isEqualTo(1);
        }
    }
}
