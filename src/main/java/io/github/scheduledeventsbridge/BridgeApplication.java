package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import org.apache.camel.main.Main;

/**
 * Entry point: Camel Main with the packaged defaults, then {@code config/application.properties} in the
 * working directory, then the file named by {@code bridge.config} / {@code BRIDGE_CONFIG}; environment
 * variables and -D system properties override them all.
 */
public final class BridgeApplication {

    private BridgeApplication() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    public static int run(String... args) throws Exception {
        try {
            return newMain().run(args);
        } catch (Exception e) {
            BadConfigurationException bad = find(e);
            if (bad == null) {
                throw e;
            }
            System.err.println(bad.getMessage());
            return 2;
        }
    }

    /** The agent as the jar runs it; tests start the very same thing in-process. */
    public static Main newMain() {
        Main main = new Main();
        main.configure().addConfiguration(BridgeConfiguration.class);
        main.setPropertyPlaceholderLocations(locations());
        return main;
    }

    static String locations() {
        String extra = System.getProperty("bridge.config", System.getenv("BRIDGE_CONFIG"));
        return "classpath:application.properties;optional=true,file:config/application.properties;optional=true"
                + (extra == null || extra.isBlank() ? "" : ",file:" + extra);
    }

    private static BadConfigurationException find(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BadConfigurationException bad) {
                return bad;
            }
        }
        return null;
    }
}
