package floor;

import org.apache.camel.main.Main;

/**
 * Rungs 3 and 4 of bench/floor.py: a bare Camel Main (the agent's jar on the class path for Camel itself) with the
 * properties file given as the first argument, which names one YAML route: scheduler → camel-http → log.
 */
public final class CamelProbe {
    public static void main(String[] args) throws Exception {
        Main main = new Main();
        main.setPropertyPlaceholderLocations("file:" + args[0]);
        System.exit(main.run(new String[0]));
    }
}
