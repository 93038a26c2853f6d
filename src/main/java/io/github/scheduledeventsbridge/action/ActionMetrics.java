package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.command.CommandResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code bridge.actions{action,outcome}} (a timer per command run) and {@code bridge.action.approvals{outcome}}, both
 * registered with zero counts at start when actions are configured, so a dashboard sees them before the first event.
 */
final class ActionMetrics {

    static final String APPROVED = "approved-after-prepare";
    /** The prepare failed or timed out. */
    static final String WITHHELD_AFTER_FAILURE = "withheld-after-prepare";
    /** Resources name other VMs too: one approval would release them before they prepared. */
    static final String WITHHELD_OTHER_VMS = "withheld-other-vms";
    static final String IDENTITY_UNKNOWN = "identity-unknown";
    static final String NO_LONGER_SCHEDULED = "no-longer-scheduled";
    /** One attempt IMDS refused or did not answer. */
    static final String ATTEMPT_FAILED = "after-prepare-failed";
    static final String GIVEN_UP = "after-prepare-given-up";
    private static final List<String> APPROVAL_OUTCOMES = List.of(APPROVED, WITHHELD_AFTER_FAILURE, WITHHELD_OTHER_VMS,
            IDENTITY_UNKNOWN, NO_LONGER_SCHEDULED, ATTEMPT_FAILED, GIVEN_UP);
    private static final List<String> RUN_OUTCOMES = List.of(CommandResult.SUCCEEDED, CommandResult.FAILED,
            CommandResult.TIMED_OUT);

    private final CamelContext context;

    ActionMetrics(CamelContext context) {
        this.context = context;
    }

    void registerAtStart(ActionSettings settings) {
        MeterRegistry registry = registry();
        if (registry == null || !settings.any()) {
            return;
        }
        for (String action : List.of(ActionRunner.PREPARE, ActionRunner.RECOVER)) {
            if (!settings.command(action).isEmpty()) {
                RUN_OUTCOMES.forEach(outcome -> timer(registry, action, outcome));
            }
        }
        APPROVAL_OUTCOMES.forEach(outcome -> counter(registry, outcome));
    }

    void run(String action, String outcome, Duration took) {
        Optional.ofNullable(registry()).ifPresent(registry -> timer(registry, action, outcome).record(took));
    }

    void approval(String outcome) {
        Optional.ofNullable(registry()).ifPresent(registry -> counter(registry, outcome).increment());
    }

    private Timer timer(MeterRegistry registry, String action, String outcome) {
        return Timer.builder("bridge.actions").tag("action", action).tag("outcome", outcome)
                .description("Prepare and recover commands run on this VM").register(registry);
    }

    private io.micrometer.core.instrument.Counter counter(MeterRegistry registry, String outcome) {
        // With camelContext, as the micrometer component tags it: Prometheus refuses one name with two sets of keys.
        return registry.counter("bridge.action.approvals", "camelContext", context.getName(), "outcome", outcome);
    }

    private MeterRegistry registry() {
        return context.getRegistry().findSingleByType(MeterRegistry.class);
    }
}
