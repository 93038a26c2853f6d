package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.management.ManagementServer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.StartupListener;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the startup-recovery route once Camel is fully started (the sinks' lanes with it), then starts the
 * management server.
 */
final class StartupRecovery implements StartupListener {

    private final AtomicBoolean done = new AtomicBoolean();

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        // Too early: routes are still starting.
    }

    @Override
    public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) throws Exception {
        // Camel passes alreadyStarted=true here even on the first start, hence the one-shot guard.
        if (done.compareAndSet(false, true)) {
            Exchange recovery = context.createFluentProducerTemplate().to("direct:startup-recovery").send();
            if (recovery.getException() != null) {
                // Without recovery the agent would never poll: refuse to start rather than sit idle.
                throw new IllegalStateException("Start-up recovery failed: " + recovery.getException().getMessage(),
                        recovery.getException());
            }
            // Recovery started the poll: health, metrics and the console come second.
            ManagementServer.startIfInstalled(context);
        }
    }
}
