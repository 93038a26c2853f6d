package io.github.scheduledeventsbridge.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

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
     * From now on {@code logger}'s records (the root logger's: every library's) go to the agent's own rolled files
     * instead of standard output, which keeps what came before and says where the rest is. Nothing changes when the
     * settings say standard output.
     *
     * @return the handler now writing the files, if any
     */
    public static Optional<RollingFileHandler> logTo(LogFileSettings settings, Logger logger) throws IOException {
        if (settings.dir().isEmpty()) {
            return Optional.empty();
        }
        RollingFileHandler files = RollingFileHandler.of(settings, new LineFormatter(LineFormatter.jsonConfigured()));
        Logger announce = Logger.getLogger(
                (logger.getName().isEmpty() ? "io.github.scheduledeventsbridge" : logger.getName()) + ".logging");
        announce.info("The log goes on in " + settings + " from now on");
        for (Handler handler : logger.getHandlers()) {
            if (handler instanceof StdoutHandler || handler instanceof RollingFileHandler) {
                logger.removeHandler(handler);
                handler.close();
            }
        }
        logger.addHandler(files);
        announce.info("The log goes on here: " + settings + "; what came before it is in the service's standard output");
        return Optional.of(files);
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
