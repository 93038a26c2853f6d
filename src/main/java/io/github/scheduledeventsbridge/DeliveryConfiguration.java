package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.BoundedHttpClient;
import io.github.scheduledeventsbridge.delivery.DeadLetters;
import io.github.scheduledeventsbridge.delivery.DeliveryRejections;
import io.github.scheduledeventsbridge.delivery.Dispatcher;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.delivery.HttpAnswer;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkFilter;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolContent;
import io.github.scheduledeventsbridge.delivery.SpoolInventory;
import io.github.scheduledeventsbridge.delivery.WebhookAddress;
import io.github.scheduledeventsbridge.delivery.WebhookFormats;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.delivery.WebhookSink;
import io.github.scheduledeventsbridge.delivery.email.EmailComposer;
import io.github.scheduledeventsbridge.delivery.eventgrid.AccessTokens;
import io.github.scheduledeventsbridge.delivery.eventgrid.EventGridAuthorization;
import io.github.scheduledeventsbridge.delivery.eventgrid.EventGridSender;
import io.github.scheduledeventsbridge.delivery.email.EmailSink;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSender;
import io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSink;
import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.eventlog.EventLogWriter;
import io.github.scheduledeventsbridge.identity.ManagedIdentity;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The delivery beans: the sinks, their spool bookkeeping and the beans each sink lane's attempt calls. */
public class DeliveryConfiguration implements CamelConfiguration {

    /** The names earlier versions gave the webhook spools (a hash of the whole URL), so that those are still found. */
    private final Map<String, String> legacySpoolIds = new HashMap<>();

    @BindToRegistry
    final WebhookAddress webhookAddress = new WebhookAddress();
    @BindToRegistry
    final WebhookFormats webhookFormats = new WebhookFormats();
    @BindToRegistry
    final EmailComposer emailComposer = new EmailComposer();
    @BindToRegistry
    final SpoolContent spoolContent = new SpoolContent();

    @BindToRegistry
    public EventHubsSender eventHubsSender(CamelContext context) {
        return new EventHubsSender(context);
    }

    @BindToRegistry
    public SinkRegistry sinkRegistry(BridgeSettings settings, VmIdentity identity, Spool spool) {
        List<Sink> sinks = new ArrayList<>(WebhookSink.create(settings.webhook().targets(),
                filter(settings.webhook().filter(), identity), legacySpoolIds, settings.webhook().concurrency()));
        if (settings.eventHubs().enabled()) {
            sinks.add(EventHubsSink.create(settings.eventHubs(), filter(settings.eventHubs().filter(), identity)));
        }
        if (settings.email().enabled()) {
            sinks.add(EmailSink.create(settings.email(), filter(settings.email().filter(), identity)));
        }
        if (settings.eventLog().enabled()) {
            sinks.add(EventLogSink.create(settings.eventLog(), filter(settings.eventLog().filter(), identity)));
        }
        SinkRegistry registry = new SinkRegistry(sinks);
        // The spool MXBean (Hawtio) names sinks as people do, not by their hash.
        spool.nameSinks(registry::label);
        return registry;
    }

    private static SinkFilter filter(FilterSettings f, VmIdentity identity) {
        return new SinkFilter(f.transitions(), f.eventTypes(), f.ownOnly(), identity);
    }

    @BindToRegistry
    public Dispatcher dispatcher(SinkRegistry sinks, Spool spool, StorageHealth storage) {
        return new Dispatcher(sinks, spool, storage);
    }

    @BindToRegistry
    public DeadLetters deadLetters(Spool spool, Clock clock) {
        return new DeadLetters(spool, clock);
    }

    @BindToRegistry
    public SpoolInventory spoolInventory(Spool spool, SinkRegistry sinks, DeadLetters deadLetters) {
        return new SpoolInventory(spool.root(), sinks, deadLetters, legacySpoolIds);
    }

    @BindToRegistry
    public DeliveryRejections deliveryRejections(BridgeSettings settings, Clock clock) {
        return new DeliveryRejections(settings.delivery().deadLetterAfter(), clock);
    }

    /** One deadline per delivery attempt, for every sink; sink secrets go to the components, never into URIs. */
    @BindToRegistry
    public AttemptDeadlines attemptDeadlines(CamelContext context, BridgeSettings settings) {
        AttemptDeadlines deadlines = new AttemptDeadlines(settings.delivery().attemptTimeout());
        EmailSink.configureComponent(context, settings.email(), deadlines);
        EventHubsSink.configureComponent(context, settings.eventHubs(), deadlines.timeout());
        return deadlines;
    }

    /** Peers' answers read only so far, within the attempt's deadline. */
    @BindToRegistry
    public BoundedHttpClient boundedHttpClient(CamelContext context, AttemptDeadlines deadlines) {
        return new BoundedHttpClient(context, deadlines);
    }

    @BindToRegistry
    public WebhookSigner webhookSigner(BridgeSettings settings, Clock clock) {
        return new WebhookSigner(settings.webhook().secret(), clock);
    }

    /** Event Grid topics: their requests, each authorized, sent in order; answers read as any webhook's. */
    @BindToRegistry
    public EventGridSender eventGridSender(CamelContext context, BridgeSettings settings, Clock clock) {
        return new EventGridSender(context, eventGridAuthorization(context, settings, clock), new HttpAnswer(clock));
    }

    /**
     * Event Grid topics: the topic key when set, else tokens of the VM's managed identity from
     * bridge.imds.identity-url (the simulator's when it runs), asked only when a topic needs one.
     */
    private static EventGridAuthorization eventGridAuthorization(CamelContext context, BridgeSettings settings, Clock clock) {
        String clientId = settings.webhook().eventGridClientId();
        if (settings.webhook().hasEventGridTargets()) {
            org.slf4j.LoggerFactory.getLogger(EventGridAuthorization.class).info("Event Grid topics: authenticated with {}",
                    !settings.webhook().eventGridKey().isEmpty() ? "the topic key (bridge.eventgrid.key)"
                            : clientId.isEmpty() ? "the VM's system-assigned managed identity"
                            : "the VM's user-assigned managed identity " + clientId);
        }
        ManagedIdentity identity = context.getRegistry().findSingleByType(ManagedIdentity.class);
        return new EventGridAuthorization(settings.webhook().eventGridKey(),
                resource -> identity.tokens().token(resource, clientId).value());
    }

    @BindToRegistry
    public HttpAnswer httpAnswer(Clock clock) {
        return new HttpAnswer(clock);
    }

    /**
     * Bound always (routes/eventlog-sink.yaml names it); without the sink no lane calls it. With it, the Windows Event
     * Log, unless a test bound its own writer.
     */
    @BindToRegistry
    public EventLogSink eventLogSink(CamelContext context, BridgeSettings settings) {
        if (!settings.eventLog().enabled()) {
            return new EventLogSink(null);
        }
        EventLogWriter writer = context.getRegistry().lookupByNameAndType(EventLogSink.WRITER_BEAN, EventLogWriter.class);
        return new EventLogSink(writer != null ? writer
                : EventLogSink.systemWriter(settings.eventLog(), BridgeConfiguration.platform(context)));
    }
}
