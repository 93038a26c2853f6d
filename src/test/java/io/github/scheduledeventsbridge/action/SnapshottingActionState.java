package io.github.scheduledeventsbridge.action;

import java.nio.file.Path;

/** Tests in other packages: an action state that rewrites its snapshot whenever asked, so the snapshot file is written. */
public final class SnapshottingActionState {

    private SnapshottingActionState() {
    }

    /** {@link ActionState#compactIfDue()} rewrites {@code actions.json} at every call (and once on opening). */
    public static ActionState open(Path stateDir) {
        return new ActionState(stateDir, 2_000, 0);
    }
}
