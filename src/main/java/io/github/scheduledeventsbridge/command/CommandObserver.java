package io.github.scheduledeventsbridge.command;

/** What a running command tells its caller: its pid once started, its (bounded) output lines, what was dropped. */
public interface CommandObserver {

    void started(long pid);

    void line(String line);

    /** Once, at the end of the output, when some of it was not passed on (see {@link OutputLimiter}). */
    void dropped(long bytes, long lines);
}
