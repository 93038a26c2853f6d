package io.github.scheduledeventsbridge.simulator;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.util.List;

/** The built-in IMDS simulator: on or off, where, how fast, which life cycles. */
public record SimulatorSettings(boolean enabled, int port, double speed, List<String> scenarios, boolean loop) {

    public static SimulatorSettings read(SettingsReader r) {
        SimulatorSettings settings = new SimulatorSettings(r.bool("bridge.simulator.enabled", false),
                r.port("bridge.simulator.port", 0), r.positiveDouble("bridge.simulator.speed", 60),
                r.list("bridge.simulator.scenarios", ""), r.bool("bridge.simulator.loop", true));
        if (settings.enabled()) {
            settings.options(); // a scenario the simulator does not know is refused with the other settings
        }
        return settings;
    }

    /** The simulator these settings describe (not started). */
    public ImdsSimulator.Options options() {
        ImdsSimulator.Options options = ImdsSimulator.Options.defaults().withPort(port).withSpeed(speed).withLoop(loop)
                // The agent's first poll may come seconds after the port is bound (a busy machine): it sees every scenario.
                .withTimeFromFirstRequest(true);
        if (scenarios.isEmpty()) {
            return options;
        }
        try {
            return options.withScenarios(scenarios);
        } catch (IllegalArgumentException e) {
            throw new BadConfigurationException("bridge.simulator.scenarios", e.getMessage());
        }
    }
}
