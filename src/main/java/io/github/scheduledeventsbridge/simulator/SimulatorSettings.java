package io.github.scheduledeventsbridge.simulator;

import io.github.scheduledeventsbridge.config.SettingsReader;

import java.util.List;

/** The built-in IMDS simulator: on or off, where, how fast, which life cycles. */
public record SimulatorSettings(boolean enabled, int port, double speed, List<String> scenarios, boolean loop) {

    public static SimulatorSettings read(SettingsReader r) {
        return new SimulatorSettings(r.bool("bridge.simulator.enabled", false), r.port("bridge.simulator.port", 0),
                r.positiveDouble("bridge.simulator.speed", 60), r.list("bridge.simulator.scenarios", ""),
                r.bool("bridge.simulator.loop", true));
    }
}
