package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.CommandObserver;
import io.github.scheduledeventsbridge.command.CommandResult;
import io.github.scheduledeventsbridge.command.CommandSpec;
import io.github.scheduledeventsbridge.command.OutputLimiter;
import io.github.scheduledeventsbridge.command.ProcessIdentity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;

/**
 * One prepare or recover command, run: its argument vector, SEB_* variables and input from the action's entry, its
 * output lines and outcome in the log (under ActionRunner's name, as operators know it), its pid written down while
 * it runs (so that a restart after kill -9 can end it).
 */
final class ActionExecution {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private final ActionSettings settings;
    private final ActionState state;
    private final CommandLauncher launcher;
    private final Clock clock;

    ActionExecution(ActionSettings settings, ActionState state, CommandLauncher launcher, Clock clock) {
        this.settings = settings;
        this.state = state;
        this.launcher = launcher;
        this.clock = clock;
    }

    CommandResult execute(ActionState.Entry entry, String prepareOutcome) throws InterruptedException {
        JsonNode data = entry.input().path("data");
        String eventId = ActionRunner.eventId(entry);
        String incarnation = data.path("documentIncarnation").asText("?");
        String label = entry.action() + " " + eventId;
        LOG.info("Running the {} command for {} {} ({}, incarnation {}{})", entry.action(),
                data.path("eventType").asText(), eventId, data.path("transition").asText(), incarnation,
                prepareOutcome == null ? "" : ", prepare " + prepareOutcome);
        CommandResult result;
        try {
            CommandSpec spec = new CommandSpec(settings.shell().argv(settings.command(entry.action())),
                    ActionEnvironment.of(data, prepareOutcome, state.runTag(entry)), MAPPER.writeValueAsBytes(entry.input()),
                    settings.timeout(), label);
            result = launcher.run(spec, new Output(entry, label));
        } catch (JsonProcessingException | RuntimeException e) {
            result = CommandResult.notRun("cannot be run: " + e, Duration.ZERO);
        }
        if (result.succeeded()) {
            LOG.info("The {} command for {} (incarnation {}) succeeded in {} ms", entry.action(), eventId,
                    incarnation, result.took().toMillis());
        } else if (result.failure() != null) {
            LOG.warn("The {} command for {} (incarnation {}) failed: {}", entry.action(), eventId, incarnation,
                    result.failure());
        } else {
            LOG.warn("The {} command for {} (incarnation {}) {} (exit code {}) after {} ms", entry.action(),
                    eventId, incarnation, result.outcome().equals(CommandResult.TIMED_OUT)
                            ? "timed out and was killed with its children" : "failed",
                    result.exitCode() == null ? "none" : result.exitCode(), result.took().toMillis());
        }
        return result;
    }

    /** How this event's prepare ended, for its recover: the recover runs in any case (the VM must be restored). */
    String prepareOutcome(String eventKey) {
        return state.find(ActionRunner.PREPARE, eventKey).map(p -> switch (p.status()) {
            case ActionState.FINISHED -> p.result() == null ? CommandResult.FAILED
                    : p.result().path("data").path("outcome").asText(CommandResult.FAILED);
            default -> ActionRunner.INTERRUPTED;
        }).orElse(ActionRunner.NO_PREPARE);
    }

    /** A command's output lines in the log, its pid written down (so a restart after kill -9 can end it). */
    private final class Output implements CommandObserver {
        private final ActionState.Entry entry;
        private final String label;

        Output(ActionState.Entry entry, String label) {
            this.entry = entry;
            this.label = label;
        }

        @Override
        public void started(long pid) {
            try {
                state.started(entry, ProcessIdentity.of(pid, clock.millis()));
            } catch (UncheckedIOException e) {
                LOG.warn("[{}] pid {} could not be written down ({}): were the agent killed now, its restart could not "
                        + "end this command", label, pid, e.getMessage());
            }
        }

        @Override
        public void line(String line) {
            LOG.info("[{}] {}", label, line);
        }

        @Override
        public void dropped(long bytes, long lines) {
            LOG.warn("[{}] {} bytes of output dropped ({} whole lines; a run logs at most {} KiB, {} lines a second "
                    + "after the first {}, {} bytes a line)", label, bytes, lines, OutputLimiter.BUDGET_BYTES / 1024,
                    OutputLimiter.LINES_PER_SECOND, OutputLimiter.BURST_LINES, OutputLimiter.MAX_LINE_BYTES);
        }
    }
}
