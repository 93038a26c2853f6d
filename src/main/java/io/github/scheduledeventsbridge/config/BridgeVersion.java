package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven built, from a resource it filtered: every package names it in what it sends and shows. */
public final class BridgeVersion {

    private static final Properties BUILD = load();
    private static final String VERSION = BUILD.getProperty("version", "unknown");
    private static final String COMMIT = BUILD.getProperty("commit", "unknown");

    private BridgeVersion() {
    }

    public static String current() {
        return VERSION;
    }

    /**
     * The commit the build came from ({@code mvn -Dbridge.commit=$(git rev-parse HEAD)}), or {@code unknown}
     * when the build was not told.
     */
    public static String commit() {
        return COMMIT.isBlank() || COMMIT.startsWith("${") ? "unknown" : COMMIT;
    }

    /** What HTTP clients of the agent send as {@code User-Agent}. */
    public static String userAgent() {
        return "scheduled-events-bridge/" + VERSION;
    }

    private static Properties load() {
        Properties properties = new Properties();
        try (InputStream in = BridgeVersion.class.getResourceAsStream("/bridge-version.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // unknown
        }
        return properties;
    }
}
