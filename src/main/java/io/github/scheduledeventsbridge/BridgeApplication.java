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
        Main main = new Main();
        main.configure().addConfiguration(BridgeConfiguration.class);
        main.setPropertyPlaceholderLocations(locations());
        try {
            int code = main.run(args);
            BadConfigurationException bad = badConfiguration(main);
            if (bad != null) {
                System.err.println(bad.getMessage());
                return 2;
            }
            return code;
        } catch (Exception e) {
            BadConfigurationException bad = find(e);
            if (bad == null) {
                throw e;
            }
            System.err.println(bad.getMessage());
            return 2;
        }
    }

    static String locations() {
        String extra = System.getProperty("bridge.config", System.getenv("BRIDGE_CONFIG"));
        return "classpath:application.properties;optional=true,file:config/application.properties;optional=true"
                + (extra == null || extra.isBlank() ? "" : ",file:" + extra);
    }

    private static BadConfigurationException badConfiguration(Main main) {
        return null;
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
