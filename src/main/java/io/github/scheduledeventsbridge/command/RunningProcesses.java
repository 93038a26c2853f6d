package io.github.scheduledeventsbridge.command;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The commands a runner has started, for whoever has to end them all (a stopping agent, an action host whose agent
 * went away). A process can be running before {@code ProcessBuilder.start()} returns: closing therefore waits for
 * starts under way, so that no command started around the close escapes it, and refuses new ones.
 */
public final class RunningProcesses {

    private final Set<Process> processes = new HashSet<>();
    private int starting;
    private boolean closed;

    /** False once closed: the command must not be started. */
    public synchronized boolean beginStart() {
        if (closed) {
            return false;
        }
        starting++;
        return true;
    }

    /** The start under way ended: with this process, or with none (null). */
    public synchronized void endStart(Process process) {
        starting--;
        if (process != null) {
            processes.add(process);
        }
        notifyAll();
    }

    public synchronized void remove(Process process) {
        processes.remove(process);
    }

    /** Refuses further starts, waits (a bounded time) for those under way, and returns every process still listed. */
    public synchronized List<Process> close(Duration atMost) {
        closed = true;
        long deadline = System.nanoTime() + atMost.toNanos();
        while (starting > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return List.copyOf(processes);
    }

    public synchronized boolean isEmpty() {
        return processes.isEmpty() && starting == 0;
    }
}
