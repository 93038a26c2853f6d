package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;

/**
 * The built-in IMDS simulator, when {@code bridge.simulator.enabled} is on: bound here (not started), started first by
 * {@link StartOrder}, which points the agent at the port it got.
 */
public class SimulatorConfiguration implements CamelConfiguration {

    /** The simulator is bound under this name (tests read its port and what it served). */
    public static final String BEAN_NAME = "imdsSimulator";

    @BindToRegistry(BEAN_NAME)
    public ImdsSimulator imdsSimulator(BridgeSettings settings) {
        return settings.simulator().enabled() ? new ImdsSimulator(settings.simulator().options()) : null;
    }
}
