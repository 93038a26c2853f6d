package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BridgeSettings;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.health.Readiness;
import io.github.scheduledeventsbridge.health.ReadinessChecks;
import io.github.scheduledeventsbridge.health.StorageHealth;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.apache.camel.BeanInject;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

import java.time.Clock;

/** What the agent tells about itself: the outage log, the delivery meters and the readiness checks. */
public class HealthConfiguration implements CamelConfiguration {

    @BeanInject
    BridgeSettings settings;
    @BeanInject
    Clock clock;
    @BeanInject
    PollBackoff pollBackoff;
    @BeanInject
    Spool spool;
    @BeanInject
    SinkRegistry sinks;
    @BeanInject
    DeadLetters deadLetters;
    @BeanInject
    StorageHealth storage;
    @BeanInject
    VmIdentity identity;

    @BindToRegistry
    public OutageLog outageLog(CamelContext context) {
        OutageLog.Settings logSettings = OutageLog.Settings.read(new SettingsReader(
                key -> context.getPropertiesComponent().resolveProperty(key).orElse(null)));
        return new OutageLog(logSettings, sinks, spool, pollBackoff, clock).watching(storage);
    }

    @BindToRegistry
    public DeliveryMetrics deliveryMetrics(CamelContext context, SpoolInventory inventory, OutageLog outageLog) {
        return new DeliveryMetrics(context, spool, sinks, inventory, outageLog).watching(pollBackoff);
    }

    @Override
    public void configure(CamelContext context) {
        ReadinessChecks.register(context, new Readiness(settings.health().imdsStaleAfter(),
                settings.health().spoolThreshold(), settings.health().sinkStaleAfter()),
                pollBackoff, spool, sinks, deadLetters, clock, storage);
        ReadinessChecks.registerIdentity(context, identity);
    }
}
