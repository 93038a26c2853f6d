package io.github.scheduledeventsbridge.simulator;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One kind of scheduled event the simulator can play, with its timings in simulated seconds.
 *
 * @param name               name used in {@link ImdsSimulator.Options#scenarios()}
 * @param eventType          IMDS {@code EventType}
 * @param eventSource        IMDS {@code EventSource}
 * @param durationInSeconds  IMDS {@code DurationInSeconds}, -1 when unknown
 * @param resources          IMDS {@code Resources}, computed from the simulated VM's name
 * @param description        IMDS {@code Description}
 * @param noticeSeconds      time between appearing and {@code NotBefore}; 0 means the event appears already Started
 * @param startedSeconds     time an event stays Started before it completes and vanishes
 * @param cancelAfterSeconds time after which a still Scheduled event vanishes unstarted; 0 means never
 */
record Scenario(
        String name,
        String eventType,
        String eventSource,
        int durationInSeconds,
        Function<String, List<String>> resources,
        String description,
        long noticeSeconds,
        long startedSeconds,
        long cancelAfterSeconds) {

    private static final long MINUTE = 60;
    private static final long NEVER = 0;
    private static final long NO_NOTICE = 0;
    private static final int UNKNOWN_DURATION = -1;
    /** A second VM in the same availability set, so filtering by own VM name can be exercised. */
    private static final String NEIGHBOUR_VM = "sim-vm-1";
    private static final String LIVE_MIGRATION =
            "Virtual machine is being paused because of a memory-preserving Live Migration operation.";

    static final Scenario FREEZE = new Scenario("freeze", "Freeze", "Platform", 5,
            vm -> List.of(vm, NEIGHBOUR_VM), LIVE_MIGRATION, 15 * MINUTE, 10 * MINUTE, NEVER);
    static final Scenario USER_REBOOT = new Scenario("user-reboot", "Reboot", "User", UNKNOWN_DURATION,
            List::of, "Virtual machine is going to be restarted as requested by authorized user.",
            15 * MINUTE, 10 * MINUTE, NEVER);
    static final Scenario REDEPLOY = new Scenario("redeploy", "Redeploy", "Platform", UNKNOWN_DURATION,
            List::of, "Virtual machine is being redeployed to a new host.", 10 * MINUTE, 10 * MINUTE, NEVER);
    static final Scenario HARDWARE_FAILURE = new Scenario("hardware-failure", "Reboot", "Platform", UNKNOWN_DURATION,
            List::of, "Virtual machine is being rebooted because of an unexpected host hardware failure.",
            NO_NOTICE, 10 * MINUTE, NEVER);
    static final Scenario CANCELLED = new Scenario("cancelled", "Reboot", "Platform", UNKNOWN_DURATION,
            List::of, "Virtual machine is going to be restarted for planned platform maintenance.",
            15 * MINUTE, 10 * MINUTE, 5 * MINUTE);
    static final Scenario SPOT_PREEMPT = new Scenario("spot-preempt", "Preempt", "Platform", UNKNOWN_DURATION,
            List::of, "Spot virtual machine is being evicted.", 30, 2 * MINUTE, NEVER);
    static final Scenario TERMINATE = new Scenario("terminate", "Terminate", "User", UNKNOWN_DURATION,
            List::of, "Virtual machine is being deleted.", 5 * MINUTE, 2 * MINUTE, NEVER);
    /** Concerns only the neighbour VM; played only when listed explicitly. */
    static final Scenario OTHER_VM = new Scenario("other-vm", "Freeze", "Platform", 5,
            vm -> List.of(NEIGHBOUR_VM), LIVE_MIGRATION, 15 * MINUTE, 10 * MINUTE, NEVER);

    /** The scenarios played when none are configured, in playing order. */
    static final List<Scenario> DEFAULTS =
            List.of(FREEZE, USER_REBOOT, REDEPLOY, HARDWARE_FAILURE, CANCELLED, SPOT_PREEMPT, TERMINATE);

    private static final List<Scenario> ALL = Stream.concat(DEFAULTS.stream(), Stream.of(OTHER_VM)).toList();
    private static final Map<String, Scenario> BY_NAME =
            ALL.stream().collect(Collectors.toUnmodifiableMap(Scenario::name, Function.identity()));

    /** Looks a scenario up by name, failing with the list of valid names so configuration errors are obvious. */
    static Scenario named(String name) {
        Scenario scenario = BY_NAME.get(name);
        if (scenario == null) {
            throw new IllegalArgumentException("Unknown simulator scenario '" + name + "'; known scenarios: "
                    + ALL.stream().map(Scenario::name).toList());
        }
        return scenario;
    }

    boolean appearsStarted() {
        return noticeSeconds == NO_NOTICE;
    }

    boolean cancels() {
        return cancelAfterSeconds != NEVER;
    }
}
