package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import org.apache.camel.main.Main;

/**
 * Entry point: Camel Main reading the file named by {@code bridge.config} / {@code BRIDGE_CONFIG}, then
 * {@code config/application.properties} in the working directory, then the defaults packaged in the jar
 * (the first that sets a key wins); environment variables override the files, and -D system properties
 * override everything.
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
        main.setRoutesCollector(new ExactRoutesCollector());
        main.setPropertyPlaceholderLocations(locations());
        return main;
    }

    /** Camel lets the first location that defines a key win, so the most specific file comes first. */
    static String locations() {
        String extra = System.getProperty("bridge.config", System.getenv("BRIDGE_CONFIG"));
        return (extra == null || extra.isBlank() ? "" : "file:" + extra + ",")
                + "file:config/application.properties;optional=true,classpath:application.properties;optional=true";
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
