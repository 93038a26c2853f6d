package io.github.scheduledeventsbridge.transitions;

/** The transitions of docs/interface.md ("Transitions"). The names are the public vocabulary: never rename them. */
public enum TransitionType {
    Scheduled, Started, Rescheduled, Completed, Cancelled, Approved
}
