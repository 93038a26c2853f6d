package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares two documents event by event (docs/interface.md, "Transitions"). It always compares content, never just
 * DocumentIncarnation: IMDS resets the incarnation after 24 h without requests, and a restarted agent
 * may have missed any number of increments.
 */
public final class TransitionDetector {

    /** Two documents of an agent that kept watching in between. */
    public List<DetectedTransition> detect(ImdsDocument previous, ImdsDocument current) {
        return detect(previous, current, Continuity.watching(java.time.Instant.now()));
    }

    /**
     * A Scheduled event that vanished is Cancelled while the agent watched continuously; otherwise its
     * ending is decided on evidence ({@link UnwatchedEnding}) and marked {@code startObserved=false}.
     */
    public List<DetectedTransition> detect(ImdsDocument previous, ImdsDocument current, Continuity continuity) {
        Map<String, ScheduledEvent> before = byKey(previous);
        Map<String, ScheduledEvent> now = byKey(current);
        List<DetectedTransition> transitions = new ArrayList<>();
        long incarnation = current.incarnation();

        // Present events first, in document order, then vanished ones in their old order.
        for (ScheduledEvent event : now.values()) {
            ScheduledEvent old = before.get(event.key());
            TransitionType type = old == null ? appeared(event) : changed(old, event);
            if (type != null) {
                transitions.add(new DetectedTransition(type, event,
                        old == null ? null : old.eventStatus(), event.eventStatus(), incarnation));
            }
        }
        for (ScheduledEvent old : before.values()) {
            if (!now.containsKey(old.key())) {
                if (old.isScheduled() && !continuity.watching()) {
                    transitions.add(new DetectedTransition(UnwatchedEnding.of(old, continuity), old, old.eventStatus(),
                            null, incarnation, null, false));
                    continue;
                }
                TransitionType type = vanished(old);
                if (type != null) {
                    transitions.add(new DetectedTransition(type, old, old.eventStatus(), null, incarnation));
                }
            }
        }
        return transitions;
    }

    private static TransitionType appeared(ScheduledEvent event) {
        if (event.isScheduled()) {
            return TransitionType.Scheduled;
        }
        // Hardware failure: IMDS skips Scheduled and lists the event as Started straight away.
        return event.isStarted() ? TransitionType.Started : null;
    }

    private static TransitionType changed(ScheduledEvent old, ScheduledEvent event) {
        if (old.isScheduled() && event.isStarted()) {
            return TransitionType.Started;
        }
        if (old.isScheduled() && event.isScheduled() && rescheduled(old, event)) {
            return TransitionType.Rescheduled;
        }
        if (!old.isScheduled() && !old.isStarted() && (event.isScheduled() || event.isStarted())) {
            // From a status this agent does not know to a known one: report it as if it had just appeared.
            return appeared(event);
        }
        return null;
    }

    private static TransitionType vanished(ScheduledEvent old) {
        if (old.isStarted()) {
            return TransitionType.Completed;
        }
        return old.isScheduled() ? TransitionType.Cancelled : null;
    }

    /** A reformatted but equal NotBefore (RFC 1123 vs ISO-8601) is not a reschedule. */
    private static boolean rescheduled(ScheduledEvent old, ScheduledEvent event) {
        boolean notBeforeMoved = old.notBefore() != null && event.notBefore() != null
                ? !old.notBefore().equals(event.notBefore())
                : !Objects.equals(blankToNull(old.notBeforeRaw()), blankToNull(event.notBeforeRaw()));
        return notBeforeMoved
                || !sameNames(old.resources(), event.resources())
                || !Objects.equals(old.durationInSeconds(), event.durationInSeconds())
                || !Objects.equals(old.description(), event.description());
    }

    /** Resources is a set of VM names: order and case carry no meaning. */
    private static boolean sameNames(List<String> a, List<String> b) {
        return normalized(a).equals(normalized(b));
    }

    private static java.util.Set<String> normalized(List<String> names) {
        java.util.Set<String> set = new java.util.TreeSet<>();
        names.forEach(n -> set.add(n.toUpperCase(java.util.Locale.ROOT)));
        return set;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static Map<String, ScheduledEvent> byKey(ImdsDocument document) {
        Map<String, ScheduledEvent> map = new LinkedHashMap<>();
        for (ScheduledEvent event : document.events()) {
            map.putIfAbsent(event.key(), event);
        }
        return map;
    }
}
