package io.github.scheduledeventsbridge.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

/** java.util.logging (every library, through slf4j-jdk14 or directly) set up from the jar's logging.properties. */
public final class BridgeLogging {

    private BridgeLogging() {
    }

    /** First thing in main, before anything logs. */
    public static void configure() {
        System.getProperties().putIfAbsent("java.util.logging.manager", ShutdownProofLogManager.class.getName());
        LogManager manager = LogManager.getLogManager(); // reads the operator's configuration, which wins
        if (System.getProperty("java.util.logging.config.file") != null
                || System.getProperty("java.util.logging.config.class") != null) {
            return;
        }
        try (InputStream in = BridgeLogging.class.getResourceAsStream("/logging.properties")) {
            manager.readConfiguration(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read logging.properties from the jar", e);
        }
    }

    /**
     * JUL's shutdown hook would remove every handler while the agent still logs its stop: that reset is skipped, as
     * Tomcat's ClassLoaderLogManager does. Lines are flushed one by one, so there is nothing to close.
     */
    public static final class ShutdownProofLogManager extends LogManager {

        @Override
        public void reset() {
            if (!Thread.currentThread().getClass().getName().startsWith("java.util.logging.LogManager$")) {
                super.reset();
            }
        }
    }
}
