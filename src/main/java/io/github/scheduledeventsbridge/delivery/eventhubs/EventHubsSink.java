package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.apache.camel.CamelContext;
import com.azure.core.amqp.AmqpRetryOptions;
import org.apache.camel.component.azure.eventhubs.EventHubsComponent;
import org.apache.camel.component.azure.eventhubs.EventHubsConfiguration;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The Event Hubs sink: the transitions of one document as one batch, through camel-azure-eventhubs
 * (lane from routes/sink-lane.yaml, attempts from routes/eventhubs-sink.yaml). One sink, spool directory {@code spool/eventhubs/}.
 */
public final class EventHubsSink {

    public static final String ID = "eventhubs";
    /** What one attempt sends to: the camel-azure-eventhubs endpoint, carried by the lane with its sink, never part of a route. */
    public record Target(String endpoint) implements Sink.Target {
    }

    /** The public cloud suffix that camel-azure-eventhubs 4.18 appends to the namespace (managed identity). */
    static final String SERVICE_BUS_SUFFIX = ".servicebus.windows.net";
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z][A-Za-z0-9-]{0,49}");
    private static final Pattern HUB = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,255}");

    static final String CONNECTION_STRING_ENDPOINT = "azure-eventhubs:connection-string";

    private EventHubsSink() {
    }

    public static Sink create(EventHubsSettings settings, Predicate<OutboundEvent> filter) {
        // synchronous: the Event Hubs producer is asynchronous; without it the lane's thread would take the
        // next spool file before the hub confirmed this one (order lost, retries overlapping).
        return new Sink(ID, settings.label(), settings.toString(), "direct:eventhubs-attempt?synchronous=true",
                new Target(endpointUri(settings)), filter, true, 1);
    }

    /**
     * A connection string (it holds the SharedAccessKey) goes to the {@code azure-eventhubs} component, whose
     * configuration every endpoint copies, and never into the endpoint URI: route dumps, the endpoint registry and
     * Hawtio would show it there.
     */
    public static void configureComponent(CamelContext context, EventHubsSettings s, Duration attemptTimeout) {
        if (!s.enabled()) {
            return;
        }
        EventHubsConfiguration configuration = context.getComponent("azure-eventhubs", EventHubsComponent.class)
                .getConfiguration();
        if (!s.managedIdentity()) {
            configuration.setConnectionString(s.connectionString());
        }
        if (configuration.getAmqpRetryOptions() == null) {
            configuration.setAmqpRetryOptions(retryOptions(attemptTimeout));
        }
    }

    /**
     * One try per attempt, ended by the SDK at {@code bridge.delivery.attempt-timeout}: the lane retries with its own
     * back-off, so the SDK's default (3 retries of up to 60 s each, with their own pauses) would only make one
     * attempt last minutes. An operator's camel.component.azure-eventhubs.amqp-retry-options wins.
     */
    static AmqpRetryOptions retryOptions(Duration attemptTimeout) {
        return new AmqpRetryOptions().setMaxRetries(0).setTryTimeout(attemptTimeout);
    }

    /**
     * The camel-azure-eventhubs endpoint. With a connection string (it names the hub in EntityPath), the endpoint
     * is {@value #CONNECTION_STRING_ENDPOINT} (the component ignores the path when it has a connection string) and
     * the string is the component's ({@link #configureComponent}).
     * With the VM's managed identity (DefaultAzureCredential in the component):
     * {@code azure-eventhubs:<namespace>/<hub>?credentialType=AZURE_IDENTITY}.
     */
    static String endpointUri(EventHubsSettings s) {
        if (s.managedIdentity()) {
            String hub = s.hubName();
            if (!HUB.matcher(hub).matches()) {
                throw new BadConfigurationException("bridge.eventhubs.name",
                        "'" + hub + "' is not an Event Hub name (letters, digits, '.', '-', '_')");
            }
            return "azure-eventhubs:" + namespaceName(s.namespace()) + "/" + hub + "?credentialType=AZURE_IDENTITY";
        }
        return CONNECTION_STRING_ENDPOINT;
    }

    /**
     * The component appends {@value #SERVICE_BUS_SUFFIX} to the namespace, so it wants the bare name;
     * {@code myns.servicebus.windows.net} and {@code sb://myns.servicebus.windows.net/} are accepted too.
     * Other clouds' hosts cannot be reached that way: those need a connection string.
     */
    static String namespaceName(String namespace) {
        String name = namespace.trim();
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith("sb://")) {
            name = name.substring("sb://".length());
        }
        if (name.endsWith("/")) {
            name = name.substring(0, name.length() - 1);
        }
        if (name.toLowerCase(Locale.ROOT).endsWith(SERVICE_BUS_SUFFIX)) {
            name = name.substring(0, name.length() - SERVICE_BUS_SUFFIX.length());
        }
        if (!NAMESPACE.matcher(name).matches()) {
            throw new BadConfigurationException("bridge.eventhubs.namespace", "'" + namespace
                    + "' is not an Event Hubs namespace name (e.g. 'myns' or 'myns" + SERVICE_BUS_SUFFIX
                    + "'); for other clouds use bridge.eventhubs.connection-string");
        }
        return name;
    }
}
