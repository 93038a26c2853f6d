package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.FluentProducerTemplate;

/**
 * The last run's leftovers, taken up once Camel has fully started (the sinks' lanes with it) and before the first
 * poll ({@link StartOrder}): the spools surveyed, interrupted actions resumed, and the outbox a crash left (often empty)
 * dispatched as the run's first dispatch, which gives the lanes every waiting file.
 */
final class StartupRecovery {

    private final SpoolInventory inventory;
    private final DeliveryMetrics deliveryMetrics;
    private final ActionRunner actions;
    private final TransitionJournal journal;

    StartupRecovery(SpoolInventory inventory, DeliveryMetrics deliveryMetrics, ActionRunner actions,
                    TransitionJournal journal) {
        this.inventory = inventory;
        this.deliveryMetrics = deliveryMetrics;
        this.actions = actions;
        this.journal = journal;
    }

    /** Without recovery the agent would never poll: a failure refuses the start rather than leave it idle. */
    void run(CamelContext context) {
        try {
            // Spools under an earlier version's name are taken over; spools no configured sink owns are reported.
            inventory.survey();
            deliveryMetrics.registerOrphanedSpoolGauges();
            // Actions a crash interrupted run again; finished ones are not (state/actions.json).
            actions.resume();
            // Through direct:dispatch like every way into the spools (routes/dispatch.yaml).
            Exception failed;
            try (FluentProducerTemplate dispatch = context.createFluentProducerTemplate()) {
                Exchange outbox = dispatch.withBody(journal.outbox()).to("direct:dispatch").send();
                failed = outbox.getException();
            }
            if (failed != null) {
                throw failed;
            }
        } catch (Exception e) {
            throw new IllegalStateException("Start-up recovery failed: " + e.getMessage(), e);
        }
    }
}
