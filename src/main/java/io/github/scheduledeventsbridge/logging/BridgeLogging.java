package io.github.scheduledeventsbridge.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

/**
 * The agent logs through java.util.logging (SLF4J's slf4j-jdk14 binding: Camel, Jetty, Netty, the Azure SDK;
 * Vert.x and the JDK directly), set up from the logging.properties in the jar: levels, and {@link StdoutHandler}.
 * An operator's {@code -Djava.util.logging.config.file} or {@code -Djava.util.logging.config.class} wins.
 */
public final class BridgeLogging {

    private BridgeLogging() {
    }

    /** First thing in main, before anything logs. */
    public static void configure() {
        System.getProperties().putIfAbsent("java.util.logging.manager", ShutdownProofLogManager.class.getName());
        LogManager manager = LogManager.getLogManager(); // reads the operator's configuration, if any
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
     * JUL's own shutdown hook removes every handler while the other hooks run, which would lose what the agent
     * logs while it stops (undelivered messages kept in the spool, ...): that one reset is skipped, as Tomcat's
     * ClassLoaderLogManager does. Lines are flushed one by one, so there is nothing to close.
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
