package io.github.scheduledeventsbridge.command;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a command told its caller, as an agent would log it: pids, lines, and what was dropped. */
public final class RecordingObserver implements CommandObserver {

    public final List<Long> pids = Collections.synchronizedList(new ArrayList<>());
    public final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    public volatile long droppedBytes;
    public volatile long droppedLines;

    @Override
    public void started(long pid) {
        pids.add(pid);
    }

    @Override
    public void line(String line) {
        lines.add(line);
    }

    @Override
    public void dropped(long bytes, long count) {
        droppedBytes = bytes;
        droppedLines = count;
    }
}
