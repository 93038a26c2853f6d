package io.github.scheduledeventsbridge.action;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a command told its caller, as an agent would log it: pids, lines, and what was dropped. */
final class RecordingObserver implements CommandObserver {

    final List<Long> pids = Collections.synchronizedList(new ArrayList<>());
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    volatile long droppedBytes;
    volatile long droppedLines;

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
