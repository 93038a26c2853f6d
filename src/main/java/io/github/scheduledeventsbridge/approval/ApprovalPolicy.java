package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which Scheduled events this agent approves on its own, from configuration. The rules are the ones
 * Microsoft's sample applies: user-initiated events (an operator asked for them), Freezes shorter than
 * N seconds (no real impact), and whole event types. With {@code leaderOnly}, only the first VM named in
 * Resources approves, since one approval releases every VM in the list.
 */
public final class ApprovalPolicy {

    private final boolean userInitiated;
    private final Integer freezeMaxSeconds;
    private final Set<String> eventTypes;
    private final boolean leaderOnly;

    public ApprovalPolicy(boolean userInitiated, Integer freezeMaxSeconds, Set<String> eventTypes, boolean leaderOnly) {
        this.userInitiated = userInitiated;
        this.freezeMaxSeconds = freezeMaxSeconds;
        this.eventTypes = eventTypes.stream().map(t -> t.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        this.leaderOnly = leaderOnly;
    }

    public boolean leaderOnly() {
        return leaderOnly;
    }

    public boolean hasRules() {
        return userInitiated || freezeMaxSeconds != null || !eventTypes.isEmpty();
    }

    /** Why a Scheduled event is not approved; {@code slug} names it in logs and in bridge.approvals{outcome=withheld-…}. */
    public enum Withheld {
        NOT_COVERED("not-covered"), IDENTITY_UNKNOWN("identity-unknown"), NOT_LEADER("not-leader");

        public final String slug;

        Withheld(String slug) {
            this.slug = slug;
        }
    }

    /** The policy's answer for one Scheduled event: the rule that approves it, or why not. */
    public record Decision(String rule, Withheld withheld, String why) {
        public boolean approves() {
            return rule != null;
        }
    }

    /** The rule that approves this event, if any. */
    public Optional<String> approves(ScheduledEvent event, VmIdentity.Vm vm) {
        return decide(event, vm).filter(Decision::approves).map(Decision::rule);
    }

    /**
     * The decision for an event, empty when there is nothing to decide (no rules, or the event is not
     * Scheduled). Coverage comes first: an event no rule covers is "not covered" whoever leads it.
     */
    public Optional<Decision> decide(ScheduledEvent event, VmIdentity.Vm vm) {
        if (!event.isScheduled() || !hasRules()) {
            return Optional.empty();
        }
        Optional<String> rule = rule(event);
        if (rule.isEmpty()) {
            boolean freeze = "Freeze".equalsIgnoreCase(event.eventType()) && event.durationInSeconds() != null;
            return Optional.of(new Decision(null, Withheld.NOT_COVERED, "no rule covers a " + event.eventSource() + " "
                    + event.eventType() + (freeze ? " of " + event.durationInSeconds() + " s" : "") + " (" + this + ")"));
        }
        if (leaderOnly && vm == null) {
            return Optional.of(new Decision(null, Withheld.IDENTITY_UNKNOWN, "this VM's IMDS name is not known yet, "
                    + "so it cannot tell whether it is the first VM of Resources (bridge.approval.auto.leader-only=true)"));
        }
        if (leaderOnly && !isLeader(event, vm)) {
            String leader = event.resources().isEmpty() ? "none" : event.resources().get(0);
            return Optional.of(new Decision(null, Withheld.NOT_LEADER, "this VM (" + vm.name() + ") is not the leader; "
                    + "the first VM of Resources (" + leader + ") approves"));
        }
        return Optional.of(new Decision(rule.get(), null, null));
    }

    private Optional<String> rule(ScheduledEvent event) {
        if (userInitiated && "User".equalsIgnoreCase(event.eventSource())) {
            return Optional.of("user-initiated");
        }
        Integer duration = event.durationInSeconds();
        if (freezeMaxSeconds != null && "Freeze".equalsIgnoreCase(event.eventType())
                && duration != null && duration >= 0 && duration < freezeMaxSeconds) {
            return Optional.of("freeze-shorter-than-" + freezeMaxSeconds + "s");
        }
        if (event.eventType() != null && eventTypes.contains(event.eventType().toLowerCase(Locale.ROOT))) {
            return Optional.of("event-type-" + event.eventType());
        }
        return Optional.empty();
    }

    /** The leader is the first VM of Resources; a VM that does not know its own name is never the leader. */
    public static boolean isLeader(ScheduledEvent event, VmIdentity.Vm vm) {
        return vm != null && !event.resources().isEmpty() && event.resources().get(0).equalsIgnoreCase(vm.name());
    }

    @Override
    public String toString() {
        return "user-initiated " + userInitiated + ", freeze shorter than " + (freezeMaxSeconds == null ? "off" : freezeMaxSeconds + " s")
                + ", event types " + (eventTypes.isEmpty() ? "none" : eventTypes) + ", leader only " + leaderOnly;
    }
}
