package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ActionStateTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private static ObjectNode input(String id) {
        ObjectNode ce = MAPPER.createObjectNode();
        ce.putObject("data").put("eventId", id);
        return ce;
    }

    @Test
    void anActionIsRequestedOnceAndItsProgressSurvivesARestart() {
        ActionState state = new ActionState(dir);
        assertThat(state.request("prepare", "A", input("a"))).isTrue();
        assertThat(state.request("prepare", "A", input("a"))).isFalse();
        assertThat(state.request("recover", "A", input("a"))).isTrue();
        ActionState.Entry prepare = state.entries().get(0);
        state.finished(prepare, MAPPER.createObjectNode().put("id", "outcome"), true);

        ActionState reloaded = new ActionState(dir);
        assertThat(reloaded.request("prepare", "A", input("a"))).as("finished before the restart").isFalse();
        assertThat(reloaded.entries()).extracting(ActionState.Entry::status).containsExactly("requested", "finished");
        ActionState.Entry finished = reloaded.entries().get(1);
        assertThat(finished.reported()).isFalse();
        assertThat(finished.approvalPending()).isTrue();
        assertThat(finished.result().path("id").asText()).isEqualTo("outcome");
        reloaded.approvalDone(reloaded.reported(finished));
        assertThat(new ActionState(dir).entries().get(1)).satisfies(e -> {
            assertThat(e.reported()).isTrue();
            assertThat(e.approvalPending()).isFalse();
        });
    }

    @Test
    void aCorruptFileIsMovedAsideAndTheAgentStartsWithout() throws Exception {
        Files.writeString(dir.resolve(ActionState.FILE), "{not json");
        ActionState state = new ActionState(dir);
        assertThat(state.entries()).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("actions.json.corrupt-"));
        }
    }

    @Test
    void settingsAreCheckedWithTheirKeys() {
        ActionSettings defaults = ActionSettings.read(new SettingsReader(Map.<String, String>of()::get));
        assertThat(defaults.any()).isFalse();
        assertThat(defaults.drainEnabled()).isFalse();
        assertThat(defaults.timeout().toMillis()).isEqualTo(300_000);
        assertThat(defaults.drainLeadTime().toMillis()).isEqualTo(300_000);
        assertThat(defaults.prepareEventTypes()).isEmpty();
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(
                Map.of("bridge.approval.auto.after-prepare", "true")::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.approval.auto.after-prepare");
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(
                Map.of("bridge.action.prepare.event-types", "Nap")::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.action.prepare.event-types");
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(Map.of("bridge.drain.port", "70000")::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.drain.port");
        assertThat(ActionSettings.read(new SettingsReader(Map.of("bridge.drain.port", "8091")::get)).drainPort())
                .isEqualTo(8091);
    }
}
