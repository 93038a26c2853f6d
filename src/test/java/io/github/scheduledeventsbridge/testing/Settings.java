package io.github.scheduledeventsbridge.testing;

import io.github.scheduledeventsbridge.BridgeSettings;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Settings read as the agent reads them, from key-value pairs alone (nothing from the environment or files). */
public final class Settings {

    private Settings() {
    }

    /** {@code keyValues}: key, value, key, value...; the state directory is {@code stateDir} unless they set one. */
    public static BridgeSettings read(Path stateDir, String... keyValues) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bridge.state.dir", stateDir.toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.put(keyValues[i], keyValues[i + 1]);
        }
        return BridgeSettings.read(properties::get);
    }
}
