package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.github.scheduledeventsbridge.testing.Docs.NOT_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An event's recover never starts before its prepare ended: Microsoft's "Canceled Maintenance" (Scheduled, then gone)
 * while a long prepare runs, and a prepare killed at its timeout (the recover still runs: the VM must be restored).
 */
class PrepareBeforeRecoverTest {

    private static final String EVENT = "CA7CE11E-0000-0000-0000-000000000001";

    @TempDir
    Path work;
    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    /** Appends "<action> start" / "<action> end" to one file, in the order things happened. */
    private String command(String action, String middle) {
        Path order = work.resolve("order");
        return "echo '" + action + " start' >> " + order + "; " + middle + "; echo '" + action + " end' >> " + order;
    }

    private List<String> order() throws IOException {
        Path order = work.resolve("order");
        return Files.exists(order) ? Files.readAllLines(order) : List.of();
    }

    @Test
    void anEventCancelledWhileItsPrepareRunsIsRecoveredOnlyOnceThePrepareEnded() throws Exception {
        Path block = Files.createFile(work.resolve("block"));
        String prepare = command("prepare", "while [ -e " + block + " ]; do sleep 0.05; done");
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.action.prepare.command", prepare)
                    .with("bridge.action.recover.command", command("recover", "true")).start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> order().contains("prepare start"));
                fixture.imds().serve(Docs.document(2));
                await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(EVENT).contains("Cancelled"));
                int served = fixture.imds().documentsServed();
                await().atMost(Duration.ofSeconds(30)).until(() -> fixture.imds().documentsServed() >= served + 5);
                assertThat(order()).as("the recover waits for the prepare").containsExactly("prepare start");

                Files.delete(block);
                await().atMost(Duration.ofSeconds(30)).until(() -> order().contains("recover end"));
                await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(EVENT).stream()
                        .filter(t -> t.startsWith("Action")).count() == 2);
            }
            assertThat(order()).containsExactly("prepare start", "prepare end", "recover start", "recover end");
            JsonNode recovered = webhook.delivered().stream()
                    .filter(r -> r.json().path("data").path("action").asText().equals("recover"))
                    .findFirst().orElseThrow().json();
            assertThat(recovered.path("data").path("prepareOutcome").asText()).isEqualTo("succeeded");
        }
    }

    @Test
    void aPrepareKilledAtItsTimeoutIsStillFollowedByTheRecoverWhichIsToldSo() throws Exception {
        Path pid = work.resolve("prepare.pid");
        String prepare = command("prepare", "echo $$ > " + pid + "; sleep 300");
        String recover = command("recover", "kill -0 $(cat " + pid + ") 2>/dev/null && echo 'prepare alive' >> "
                + work.resolve("order") + "; echo \"$SEB_PREPARE_OUTCOME\" > " + work.resolve("prepare-outcome"));
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).with("bridge.action.prepare.command", prepare)
                    .with("bridge.action.recover.command", recover).with("bridge.action.timeout", "3000").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> order().contains("prepare start"));
                fixture.imds().serve(Docs.document(2));
                await().atMost(Duration.ofSeconds(30)).until(() -> order().contains("recover end"));
                await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(EVENT).stream()
                        .filter(t -> t.startsWith("Action")).count() == 2);
            }
            assertThat(order()).containsExactly("prepare start", "recover start", "recover end");
            assertThat(Files.readString(work.resolve("prepare-outcome")).trim()).isEqualTo("timed-out");
            JsonNode recovered = webhook.delivered().stream()
                    .filter(r -> r.json().path("data").path("action").asText().equals("recover"))
                    .findFirst().orElseThrow().json();
            assertThat(recovered.path("data").path("outcome").asText()).isEqualTo("succeeded");
            assertThat(recovered.path("data").path("prepareOutcome").asText()).isEqualTo("timed-out");
        }
    }
}
