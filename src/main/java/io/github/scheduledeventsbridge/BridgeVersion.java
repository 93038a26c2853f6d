package io.github.scheduledeventsbridge;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven built, from a resource it filtered. */
public final class BridgeVersion {

    private static final String VERSION = load();

    private BridgeVersion() {
    }

    public static String current() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = BridgeVersion.class.getResourceAsStream("/bridge-version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
