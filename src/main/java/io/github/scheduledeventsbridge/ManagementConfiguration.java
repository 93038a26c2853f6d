package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.management.ManagementServer;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

/**
 * The management server, bound before Camel starts (without a console Camel keeps no MBeans) and started by
 * {@link StartOrder} once the poll has started.
 */
public class ManagementConfiguration implements CamelConfiguration {

    @Override
    public void configure(CamelContext context) {
        ManagementServer.install(context, context.getRegistry().findSingleByType(BridgeSettings.class).management());
    }
}
