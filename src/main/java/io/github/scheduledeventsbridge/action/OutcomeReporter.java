package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Finished actions' outcome messages go into the journal's outbox (the next poll dispatches them), as many at once as
 * have finished meanwhile: one journal write and one step in the actions log for a whole batch, on a thread of its
 * own, so a thousand quick commands do not mean a thousand rewrites of the journal. Then what may be approved is
 * handed on.
 */
final class OutcomeReporter {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final ActionState state;
    private final TransitionJournal journal;
    private final Consumer<ActionState.Entry> approvalPending;
    private final LinkedBlockingQueue<ActionState.Entry> finished = new LinkedBlockingQueue<>();
    private final Thread thread;
    private boolean started;

    OutcomeReporter(ActionState state, TransitionJournal journal, Consumer<ActionState.Entry> approvalPending) {
        this.state = state;
        this.journal = journal;
        this.approvalPending = approvalPending;
        this.thread = new Thread(this::loop, "bridge-action-outcomes");
        thread.setDaemon(true);
    }

    /** Started with the first outcome: an agent without actions has no thread for them. */
    synchronized void add(ActionState.Entry entry) {
        if (!started) {
            started = true;
            thread.start();
        }
        finished.add(entry);
    }

    void stop() {
        thread.interrupt();
    }

    private void loop() {
        try {
            while (true) {
                List<ActionState.Entry> batch = new ArrayList<>();
                batch.add(finished.take());
                finished.drainTo(batch);
                report(batch);
            }
        } catch (InterruptedException stopping) {
            // Unreported outcomes are reported at the next start (actions log).
        }
    }

    private void report(List<ActionState.Entry> batch) throws InterruptedException {
        List<ActionState.Entry> unreported = batch.stream().filter(e -> !e.reported() && e.result() != null).toList();
        List<ActionState.Entry> done = new ArrayList<>(batch.stream().filter(e -> !unreported.contains(e)).toList());
        if (!unreported.isEmpty()) {
            try {
                journal.recordCloudEvents(unreported.stream().map(ActionState.Entry::result).toList());
            } catch (IOException | UncheckedIOException e) {
                LOG.error("The outcome of {} action(s) could not be recorded ({}); retried in {} s", unreported.size(),
                        e.getMessage(), RETRY_AFTER.toSeconds());
                Thread.sleep(RETRY_AFTER.toMillis());
                finished.addAll(batch);
                return;
            }
            try {
                done.addAll(state.reported(unreported));
            } catch (UncheckedIOException e) {
                LOG.error("The outcome of {} action(s) was recorded but that could not be written down ({}): it may be "
                        + "reported twice after a restart", unreported.size(), e.getMessage());
                done.addAll(unreported);
            }
        }
        for (ActionState.Entry entry : done) {
            if (entry.approvalPending()) {
                approvalPending.accept(entry);
            }
        }
        state.compactIfDue();
    }
}
