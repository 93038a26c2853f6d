package io.github.scheduledeventsbridge.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.action.ActionState;
import io.github.scheduledeventsbridge.action.SnapshottingActionState;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * Run in a process of its own (its umask is the test's choice): makes the state directory named by its argument and
 * writes every kind of file the agent keeps there, through the agent's own code. Also one file created the plain way,
 * to show the umask in effect.
 */
public final class StateFilesWriter {

    public static final String CONTROL = "control.txt";

    public static void main(String[] args) throws Exception {
        Path state = new SettingsReader(key -> null).writableDirectory("bridge.state.dir", args[0]);
        Files.writeString(state.resolve(CONTROL), "as the umask allows");
        Clock clock = Clock.systemUTC();
        VmIdentity identity = new VmIdentity(clock);
        new TransitionJournal(state, new TransitionDetector(), new CloudEventFactory(clock, identity),
                new ResourceFilter(ResourceFilter.Mode.ALL, identity), clock)
                .record(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));
        Spool spool = new Spool(state.resolve("spool"));
        Sink sink = new Sink("webhook-1", "a webhook", "tpl", Sink.Target.NONE, event -> true);
        spool.store(sink, 1, "{\"kept\":1}".getBytes(StandardCharsets.UTF_8));
        SpoolEntry refused = spool.store(sink, 2, "{\"refused\":2}".getBytes(StandardCharsets.UTF_8));
        new DeadLetters(spool, clock).moveToDeadLetter(refused, new IllegalStateException("HTTP 410 Gone"));
        ActionState actions = SnapshottingActionState.open(state);
        actions.request("prepare", "A", new ObjectMapper().createObjectNode().put("id", "a"));
        actions.compactIfDue();
    }
}
