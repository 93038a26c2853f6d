package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.DeliveryOutcome;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.health.Readiness;
import io.github.scheduledeventsbridge.health.ReadinessChecks;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

import java.time.Clock;

/** What the agent tells about itself: the outage log, the delivery meters and the readiness checks. */
public class HealthConfiguration implements CamelConfiguration {

    @BindToRegistry
    public OutageLog outageLog(CamelContext context, SinkRegistry sinks, Spool spool, PollBackoff pollBackoff, Clock clock,
                               StorageHealth storage) {
        OutageLog.Settings logSettings = OutageLog.Settings.read(new SettingsReader(
                key -> context.getPropertiesComponent().resolveProperty(key).orElse(null)));
        return new OutageLog(logSettings, sinks, spool, pollBackoff, clock).watching(storage);
    }

    @BindToRegistry
    public DeliveryMetrics deliveryMetrics(CamelContext context, Spool spool, SinkRegistry sinks, SpoolInventory inventory,
                                           PollBackoff pollBackoff) {
        return new DeliveryMetrics(context, spool, sinks, inventory).watching(pollBackoff).registerMeters();
    }

    /** What follows each delivery attempt (routes/sink-lane.yaml, routes/error-handling.yaml). */
    @BindToRegistry
    public DeliveryOutcome deliveryOutcome(Spool spool, DeadLetters deadLetters, OutageLog outageLog,
                                           DeliveryMetrics deliveryMetrics) {
        return new DeliveryOutcome(spool, deadLetters, outageLog, deliveryMetrics);
    }

    /** The readiness probe's checks, registered with Camel's health checks. */
    @BindToRegistry
    public Readiness readiness(CamelContext context, BridgeSettings settings, PollBackoff pollBackoff, Spool spool,
                               SinkRegistry sinks, DeadLetters deadLetters, Clock clock, StorageHealth storage,
                               VmIdentity identity) {
        Readiness readiness = new Readiness(settings.health().imdsStaleAfter(), settings.health().spoolThreshold(),
                settings.health().sinkStaleAfter());
        ReadinessChecks.register(context, readiness, pollBackoff, spool, sinks, deadLetters, clock, storage, identity);
        return readiness;
    }
}
