package io.github.scheduledeventsbridge.health;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether the last write of the state file and of the spool worked. A failed write makes the agent not
 * ready, with the reason (a path and the OS error: no secret), until a write of the same kind succeeds:
 * otherwise an agent that records nothing would look healthy.
 */
public final class StorageHealth {

    public static final String STATE = "state";
    public static final String SPOOL = "spool";

    private final Map<String, String> problems = new TreeMap<>();

    public synchronized void failed(String what, String reason) {
        problems.put(what, reason);
    }

    public synchronized void succeeded(String what) {
        problems.remove(what);
    }

    public synchronized boolean isFailing(String what) {
        return problems.containsKey(what);
    }

    /** The reasons of the failing kinds, or empty when every last write worked. */
    public synchronized Optional<String> problem() {
        if (problems.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder text = new StringBuilder();
        problems.forEach((what, reason) -> text.append(text.length() == 0 ? "" : "; ")
                .append(what).append(" write failed: ").append(reason));
        return Optional.of(text.toString());
    }
}
