package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Full life cycles from the built-in simulator to a real webhook, as the quick start runs them. */
class SimulatorLifecycleTest {

    private static final String SECRET = "lifecycle-secret";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.simulator().webhook(SECRET)
            .with("bridge.simulator.speed", "150")
            .with("bridge.simulator.loop", "false");

    private InProcessAgent agent(String scenarios, String filter) throws Exception {
        return fixture.start("bridge.simulator.scenarios", scenarios, "bridge.filter.resources", filter);
    }

    @Test
    void freezeHardwareFailureAndCancellationArriveSignedInOrder() throws Exception {
        try (InProcessAgent agent = agent("freeze,hardware-failure,cancelled", "all")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.webhook().delivered().size() >= 7);
            // Between changes the agent's polls were conditional and answered 304, as on try-on-simulator.
            assertThat(agent.bean("imdsSimulator", ImdsSimulator.class).notModifiedServed()).isPositive();
        }
        Map<String, List<String>> byEvent = new LinkedHashMap<>();
        Map<String, String> typeOf = new LinkedHashMap<>();
        for (WebhookReceiver.Request r : fixture.webhook().delivered()) {
            byEvent.computeIfAbsent(r.eventId(), k -> new java.util.ArrayList<>()).add(r.transition());
            typeOf.put(r.eventId(), r.json().path("data").path("eventType").asText());
        }
        assertThat(byEvent.values()).containsExactly(
                List.of("Scheduled", "Started", "Completed"),   // live-migration Freeze
                List.of("Started", "Completed"),                // hardware failure skips Scheduled
                List.of("Scheduled", "Cancelled"));             // withdrawn before it started
        assertThat(typeOf.values()).containsExactly("Freeze", "Reboot", "Reboot");

        List<WebhookReceiver.Request> delivered = fixture.webhook().delivered();
        assertThat(delivered).hasSize(7);
        assertThat(delivered).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates();
        for (WebhookReceiver.Request r : delivered) {
            assertThat(r.signatureValid()).as("signature of %s", r.id()).isTrue();
            assertThat(r.contentType()).isEqualTo("application/cloudevents+json");
            assertThat(Math.abs(Long.parseLong(r.timestamp()) - Instant.now().getEpochSecond())).isLessThan(120);
            JsonNode ce = r.json();
            assertThat(ce.path("specversion").asText()).isEqualTo("1.0");
            assertThat(ce.path("type").asText()).isEqualTo("io.github.scheduledeventsbridge.transition." + r.transition());
            assertThat(ce.path("subject").asText()).isEqualTo(r.eventId());
            assertThat(ce.path("datacontenttype").asText()).isEqualTo("application/json");
            assertThat(ce.path("source").asText()).endsWith("/virtualMachines/sim-vm-0");
            assertThat(ce.path("data").path("vm").path("name").asText()).isEqualTo("sim-vm-0");
            assertThat(ce.path("data").path("documentIncarnation").asLong()).isGreaterThan(1);
        }
        JsonNode scheduledFreeze = delivered.get(0).json().path("data");
        assertThat(scheduledFreeze.path("notBefore").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        assertThat(scheduledFreeze.path("previousStatus").isNull()).isTrue();
        assertThat(scheduledFreeze.path("resources").toString()).isEqualTo("[\"sim-vm-0\",\"sim-vm-1\"]");
        JsonNode started = delivered.get(1).json().path("data");
        assertThat(started.path("notBefore").isNull()).as("NotBefore is empty once Started").isTrue();
        assertThat(started.path("previousStatus").asText()).isEqualTo("Scheduled");
    }

    @Test
    void ownFilterKeepsOnlyEventsNamingThisVm() throws Exception {
        ImdsSimulator simulator;
        try (InProcessAgent agent = agent("other-vm,hardware-failure", "own")) {
            simulator = agent.bean("imdsSimulator", ImdsSimulator.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.webhook().delivered().stream()
                    .anyMatch(r -> r.transition().equals("Completed")));
        }
        assertThatThrownBy(simulator::port).as("stopped with the agent").isInstanceOf(IllegalStateException.class);
        assertThat(fixture.webhook().delivered()).extracting(WebhookReceiver.Request::transition)
                .containsExactly("Started", "Completed");
        assertThat(fixture.webhook().delivered()).allSatisfy(r ->
                assertThat(r.json().path("data").path("resources").toString()).contains("sim-vm-0"));
    }

    @Test
    void aSimulatorPortThatCannotBeBoundStopsStartUpNamingTheKey() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> InProcessAgent.builder(fixture.state())
                    .with("bridge.simulator.enabled", "true")
                    .with("bridge.simulator.port", Integer.toString(taken.getLocalPort())).start())
                    .hasStackTraceContaining("bridge.simulator.port: cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }
}
