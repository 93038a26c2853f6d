package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.action.ActionSettings;
import io.github.scheduledeventsbridge.action.ActionState;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.slf4j.LoggerFactory;

import java.time.Clock;

/**
 * docs/actions-and-drain.md: the prepare/recover runner (always bound; idle without commands) and the drain signal
 * (its port is opened in {@link StartOrder}).
 */
public class ActionConfiguration implements CamelConfiguration {

    @BindToRegistry
    public ActionRunner actionRunner(CamelContext context, BridgeSettings settings, VmIdentity identity,
                                     TransitionJournal journal, Clock clock) {
        ActionSettings actions = settings.actions();
        ActionRunner runner = new ActionRunner(actions, new ActionState(settings.stateDir()), identity, journal, context,
                clock);
        if (actions.any()) {
            LoggerFactory.getLogger(BridgeConfiguration.class).info("Actions on this VM: {}", runner.describe());
        }
        return runner;
    }

    @BindToRegistry
    public DrainSignal drainSignal(BridgeSettings settings, VmIdentity identity, TransitionJournal journal, Clock clock) {
        return new DrainSignal(journal, identity, settings.actions().drainLeadTime(), clock);
    }
}
