package io.github.scheduledeventsbridge.delivery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SpoolInventoryTest {

    @TempDir
    Path root;

    private void file(String relative) throws IOException {
        Path path = root.resolve(relative);
        Files.createDirectories(path.getParent());
        Files.writeString(path, "{}");
    }

    @Test
    @DisplayName("spools no configured sink owns are counted and kept; an earlier version's name is taken over")
    void survey() throws IOException {
        file("webhook-current/0000000000000000005.json");
        file("webhook-legacy/0000000000000000003.json");
        file("webhook-legacy/0000000000000000005.json");
        file("webhook-legacy/dead-letter/0000000000000000001.json");
        file("webhook-removed/0000000000000000001.json");
        file("webhook-removed/0000000000000000002.json");
        Files.createDirectories(root.resolve("webhook-empty"));
        Sink sink = new Sink("webhook-current", "d", "direct:x", Sink.Target.NONE, e -> true);
        SinkRegistry sinks = new SinkRegistry(List.of(sink));
        DeadLetters deadLetters = new DeadLetters(new Spool(root), Clock.systemUTC());

        SpoolInventory inventory = new SpoolInventory(root, sinks, deadLetters,
                Map.of("webhook-legacy", "webhook-current"));
        inventory.survey();

        assertThat(root.resolve("webhook-current/0000000000000000003.json")).exists();
        assertThat(root.resolve("webhook-legacy/0000000000000000005.json")).as("a name already there stays").exists();
        assertThat(root.resolve("webhook-current/dead-letter/0000000000000000001.json")).exists();
        assertThat(deadLetters.count("webhook-current")).isEqualTo(1);
        assertThat(inventory.orphaned()).isEqualTo(Map.of("webhook-removed", 2L, "webhook-legacy", 1L));
        assertThat(root.resolve("webhook-removed/0000000000000000001.json")).as("kept").exists();
    }
}
