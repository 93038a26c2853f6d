package io.github.scheduledeventsbridge.action;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.command.ProcessIdentity;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    void theRequestsOfADocumentAreOneAppendAndEachStepOneLineWhateverIsRemembered() throws Exception {
        ActionState state = new ActionState(dir);
        List<ActionState.Request> requests = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            requests.add(new ActionState.Request("prepare", "E" + i, input("e" + i)));
        }
        requests.add(new ActionState.Request("prepare", "E0", input("e0")));
        List<ActionState.Entry> fresh = state.requestAll(requests);
        assertThat(fresh).hasSize(1000);
        assertThat(state.requestAll(requests)).as("asked for before").isEmpty();
        state.finished(state.started(fresh.get(7), new ProcessIdentity(4242, 1234, 56L, "boot", "pid:[1]")), MAPPER.createObjectNode().put("id", "r"), false);

        assertThat(Files.readAllLines(dir.resolve(ActionLog.FILE))).hasSize(1 + 1000 + 2);
        assertThat(Files.exists(dir.resolve(ActionState.FILE))).as("no snapshot rewritten per step").isFalse();
        ActionState reloaded = new ActionState(dir);
        assertThat(reloaded.entries()).hasSize(1000);
        assertThat(reloaded.find("prepare", "E7")).get().satisfies(e -> {
            assertThat(e.status()).isEqualTo("finished");
            assertThat(e.pid()).as("the process is forgotten once finished").isNull();
        });
        assertThat(reloaded.find("prepare", "E8").orElseThrow().status()).isEqualTo("requested");
    }

    @Test
    void aStartedCommandsPidIsRememberedForTheNextStart() {
        ActionState state = new ActionState(dir);
        state.request("prepare", "A", input("a"));
        ProcessIdentity process = new ProcessIdentity(4242, 1234, 56L, "boot", "pid:[4026531836]");
        state.started(state.entries().get(0), process);
        assertThat(new ActionState(dir).entries().get(0).process()).as("from the log").isEqualTo(process);
        new ActionState(dir, 2_000, 0).compactIfDue();
        assertThat(new ActionState(dir).entries().get(0).process()).as("from the snapshot").isEqualTo(process);
    }

    @Test
    void aTornLastStepIsCutOffAndTheLogGoesOn() throws Exception {
        ActionState state = new ActionState(dir);
        state.request("prepare", "A", input("a"));
        Files.write(dir.resolve(ActionLog.FILE), "{\"op\":\"finished\",\"id\":\"prep".getBytes(),
                java.nio.file.StandardOpenOption.APPEND);

        ActionState reloaded = new ActionState(dir);
        assertThat(reloaded.entries()).extracting(ActionState.Entry::status).containsExactly("requested");
        reloaded.request("recover", "A", input("a"));
        assertThat(new ActionState(dir).ids()).containsExactly("prepare|A", "recover|A");
    }

    @Test
    void anUnreadableLineInTheMiddleIsSetAsideAndTheStepsAfterItAreKept() throws Exception {
        ActionState state = new ActionState(dir);
        state.request("prepare", "A", input("a"));
        state.request("prepare", "B", input("b"));
        ActionState.Entry a = state.find("prepare", "A").orElseThrow();
        // B's prepare succeeded, its outcome message was recorded and its approval decided...
        state.approvalDone(state.reported(state.finished(state.find("prepare", "B").orElseThrow(),
                MAPPER.createObjectNode().put("id", "outcome-b"), true)));
        // ...after a step that is now unreadable (A's start, a disk error), among others.
        state.started(a, new ProcessIdentity(4242, 1234, 56L, "boot", "pid:[1]"));
        Path log = dir.resolve(ActionLog.FILE);
        List<String> lines = new ArrayList<>(Files.readAllLines(log));
        String garbage = "{\"op\":\"start\u0000\u0000" + "x".repeat(10_000);
        lines.add(3, garbage);
        for (int i = 0; i < 150; i++) {
            lines.add(4, "not json " + i);
        }
        Files.write(log, lines);

        ActionState reloaded = new ActionState(dir);
        assertThat(reloaded.find("prepare", "B")).get().as("not run again, not reported again").satisfies(b -> {
            assertThat(b.status()).isEqualTo("finished");
            assertThat(b.reported()).isTrue();
            assertThat(b.approvalPending()).isFalse();
        });
        assertThat(reloaded.find("prepare", "A").orElseThrow().pid()).as("the step after the bad lines").isEqualTo(4242);
        List<Path> asides;
        try (var files = Files.list(dir)) {
            asides = files.filter(f -> f.getFileName().toString().startsWith("actions.log.corrupt-")).toList();
        }
        assertThat(asides).hasSize(1);
        List<String> aside = Files.readAllLines(asides.get(0));
        assertThat(aside).as("at most 100 lines kept").hasSize(100);
        assertThat(aside.get(0)).as("each at most 4 KiB").hasSize(4096).startsWith("{\"op\":\"start");
        assertThat(Files.readAllLines(log)).as("the log keeps its readable lines only")
                .hasSize(lines.size() - 151).noneMatch(l -> l.startsWith("not json"));

        reloaded.finished(reloaded.find("prepare", "A").orElseThrow(), MAPPER.createObjectNode(), false);
        assertThat(new ActionState(dir).entries()).extracting(ActionState.Entry::status)
                .containsExactly("finished", "finished");
        try (var files = Files.list(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().startsWith("actions.log.corrupt-")))
                    .as("nothing more set aside").hasSize(1);
        }
    }

    @Test
    void theNewestFiveFilesOfUnreadableLinesAreKept() throws Exception {
        for (int i = 0; i < 7; i++) {
            Files.writeString(dir.resolve("actions.log.corrupt-" + (1_000_000_000_000L + i)), "old\n");
        }
        new ActionState(dir).request("prepare", "A", input("a"));
        Path log = dir.resolve(ActionLog.FILE);
        Files.writeString(log, Files.readString(log) + "not json\n");

        assertThat(new ActionState(dir).entries()).hasSize(1);
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("actions.log.corrupt-")))
                    .hasSize(5).doesNotContain("actions.log.corrupt-1000000000000", "actions.log.corrupt-1000000000001",
                            "actions.log.corrupt-1000000000002")
                    .anyMatch(n -> !n.startsWith("actions.log.corrupt-100000000000"));
        }
    }

    @Test
    void aSnapshotReplacesTheLogAndALogLeftFromBeforeItIsIgnored() throws Exception {
        // Keeps 20 finished entries; a snapshot once the log passes 4 KiB.
        ActionState state = new ActionState(dir, 20, 4096);
        List<ActionState.Request> requests = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            requests.add(new ActionState.Request("prepare", "E" + i, input("e" + i)));
        }
        for (ActionState.Entry e : state.requestAll(requests)) {
            state.finished(e, MAPPER.createObjectNode().put("id", "r"), false);
        }
        state.reported(state.entries());
        byte[] before = Files.readAllBytes(dir.resolve(ActionLog.FILE));
        assertThat(before.length).isGreaterThan(4096);

        state.compactIfDue();
        assertThat(Files.size(dir.resolve(ActionLog.FILE))).as("started afresh").isLessThan(100);
        assertThat(new ActionState(dir, 20, 4096).entries()).as("the oldest finished ones beyond 20 pruned").hasSize(20);

        // A crash between the snapshot and the new log leaves the old log: its steps are in the snapshot already
        // (replayed, they would bring the pruned entries back).
        Files.write(dir.resolve(ActionLog.FILE), before);
        ActionState reloaded = new ActionState(dir, 20, 1 << 20);
        assertThat(reloaded.entries()).hasSize(20).noneMatch(e -> e.status().equals("requested"));
        reloaded.request("recover", "E29", input("e29"));
        assertThat(new ActionState(dir, 20, 1 << 20).find("recover", "E29")).as("the log goes on").isPresent();
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
        assertThat(defaults.shell().argv("true")).containsExactly("/bin/sh", "-c", "true");
        assertThat(defaults.hostSocket()).isEmpty();
        assertThat(ActionSettings.read(new SettingsReader(Map.of("bridge.action.shell", "/bin/bash  -euc")::get))
                .shell().argv("x")).containsExactly("/bin/bash", "-euc", "x");
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(Map.of("bridge.action.shell", "/no/such/sh -c")::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.action.shell");
        assertThat(ActionSettings.read(new SettingsReader(Map.of("bridge.action.shell", "/no/such/sh -c",
                "bridge.action.host-socket", "/run/x.sock")::get)).hostSocket()).as("the host's to find").isEqualTo("/run/x.sock");
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(Map.of("bridge.action.host-socket", "run/x.sock")::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.action.host-socket");
        assertThat(ActionShell.platformDefault(Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(),
                Map.of("SystemRoot", "D:\\Win")))).containsExactly("/bin/sh", "-c");
        assertThat(ActionShell.platformDefault(Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(),
                Map.of("SYSTEMROOT", "D:\\Win\\")))).as("under the platform's %SystemRoot%")
                .containsExactly("D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
        assertThat(ActionShell.platformDefault(Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(), Map.of())))
                .containsExactly("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
        assertThat(ActionShell.parse("", Platform.current()).words()).as("this JVM's").containsExactly("/bin/sh", "-c");
        assertThat(ActionSettings.read(new SettingsReader(key -> null, Platform.of(OperatingSystem.WINDOWS,
                FileSystems.getDefault(), Map.of("SystemRoot", "D:\\Win")))).shell().words())
                .as("the platform the settings are read for")
                .containsExactly("D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
        // PowerShell alone gets the command encoded; a too long one is refused at start, naming its key.
        assertThat(ActionShell.parse("pwsh", Platform.current()).argv("Write-Output $env:SEB_EVENT_ID"))
                .startsWith("pwsh", "-NoProfile").contains("-EncodedCommand");
        assertThatThrownBy(() -> ActionSettings.read(new SettingsReader(Map.of("bridge.action.shell", "pwsh",
                "bridge.action.recover.command", "x".repeat(20_000))::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.action.recover.command")
                .hasMessageContaining("32,767");
        assertThat(ActionSettings.read(new SettingsReader(Map.of("bridge.drain.port", "8091")::get)).drainPort())
                .isEqualTo(8091);
    }
}
