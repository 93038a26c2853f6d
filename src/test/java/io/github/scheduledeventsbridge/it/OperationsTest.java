package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Metrics and readiness through a life cycle, an IMDS outage and a webhook outage. */
class OperationsTest {

    private static final String EVENT = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    private static double count(MeterRegistry registry, String name, String... tags) {
        return Search.in(registry).name(name).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    /** GET on the agent's management server: "status body". */
    private static String scrape(InProcessAgent agent, String path) throws Exception {
        int port = agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private static boolean ready(InProcessAgent agent) {
        return HealthCheckHelper.invokeReadiness(agent.context()).stream()
                .filter(r -> r.getCheck().getGroup() != null && r.getCheck().getGroup().equals("bridge"))
                .allMatch(r -> r.getState() == HealthCheck.State.UP);
    }

    private static String readinessOf(InProcessAgent agent, String id) {
        return HealthCheckHelper.invokeReadiness(agent.context()).stream()
                .filter(r -> r.getCheck().getId().equals(id)).findFirst()
                .map(r -> r.getState() + " " + r.getMessage().orElse("")).orElse("missing");
    }

    @Test
    void metricsAndReadinessFollowALifeCycleAndOutages() throws Exception {
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(2, Docs.scheduled(EVENT, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm")));
        try (InProcessAgent agent = fixture.builder()
                .with("bridge.health.imds-stale-after", "1500")
                .with("bridge.health.sink-stale-after", "1500")
                .with("bridge.delivery.initial-backoff", "100").with("bridge.delivery.max-backoff", "300").start()) {
            MeterRegistry registry = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> ready(agent));
            assertThat(count(registry, "bridge.imds.polls", "outcome", "ok")).isPositive();
            assertThat(count(registry, "bridge.transitions", "transition", "Scheduled")).isEqualTo(1.0);
            // The receiver records the request before the agent reads its answer and counts the delivery.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count(registry, "bridge.deliveries", "outcome", "delivered") == 1.0);
            assertThat(Search.in(registry).name("bridge.imds.poll").timers()).isNotEmpty();
            assertThat(Search.in(registry).name("bridge.spool.depth").gauges()).hasSize(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> scrape(agent, "/observe/health/ready").startsWith("200"));
            String metrics = scrape(agent, "/metrics");
            assertThat(metrics).startsWith("200").contains("bridge_imds_polls_total{").contains("outcome=\"ok\"")
                    .contains("bridge_transitions_total{").contains("transition=\"Scheduled\"")
                    .contains("bridge_deliveries_total{").contains("bridge_spool_depth{");

            // IMDS outage: failures by kind, and readiness goes down, then up again.
            imds.failWith(500, null);
            await().atMost(Duration.ofSeconds(20)).until(() -> !ready(agent));
            assertThat(readinessOf(agent, "imds")).startsWith("DOWN");
            assertThat(count(registry, "bridge.imds.polls", "outcome", "server-error")).isPositive();
            await().atMost(Duration.ofSeconds(20)).until(() -> scrape(agent, "/observe/health/ready").startsWith("503"));
            assertThat(scrape(agent, "/observe/health/live")).startsWith("200");
            assertThat(scrape(agent, "/metrics")).contains("outcome=\"server-error\"");
            imds.recover();
            await().atMost(Duration.ofSeconds(20)).until(() -> ready(agent));
            await().atMost(Duration.ofSeconds(20)).until(() -> scrape(agent, "/observe/health/ready").startsWith("200"));

            // Webhook outage: retries counted, spool depth visible, the sink check goes down.
            webhook.answerWith(503);
            imds.serve(Docs.document(3, Docs.started(EVENT, "Reboot", "vm")));
            await().atMost(Duration.ofSeconds(20)).until(() -> count(registry, "bridge.deliveries", "outcome", "retry") >= 2);
            assertThat(Search.in(registry).name("bridge.spool.depth").gauge().value()).isEqualTo(1.0);
            await().atMost(Duration.ofSeconds(20)).until(() -> readinessOf(agent, "sinks").startsWith("DOWN"));
            webhook.answerWith(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
            await().atMost(Duration.ofSeconds(20)).until(() -> ready(agent));
            assertThat(Search.in(registry).name("bridge.spool.depth").gauge().value()).isZero();
            assertThat(count(registry, "bridge.transitions", "transition", "Started")).isEqualTo(1.0);
        }
    }
}
