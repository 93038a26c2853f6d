package io.github.scheduledeventsbridge;

import org.apache.hc.core5.ssl.SSLContexts;

import java.lang.management.ManagementFactory;

/**
 * Start-up work the first poll waits for that needs no configuration, begun on a second thread as the agent starts,
 * so that it overlaps with Camel reading its configuration and routes (BENCHMARKS.md, "Idle CPU and start"):
 * Camel's HTTP component builds a TLS context for its first endpoint even though IMDS is plain http:// (the JDK
 * then loads and parses its trust store), and Camel's JMX support creates the platform MBean server. Both are
 * cached by the JDK and safe to call from several threads; whatever fails here fails again, and is reported,
 * where the agent needs it.
 */
final class StartupWarmUp {

    private StartupWarmUp() {
    }

    static void begin() {
        Thread thread = new Thread(StartupWarmUp::run, "startup-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    private static void run() {
        try {
            SSLContexts.createDefault();
            ManagementFactory.getPlatformMBeanServer();
        } catch (RuntimeException | Error ignored) {
            // Only a head start: the same call on the main thread reports it.
        }
    }
}
