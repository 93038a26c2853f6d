package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.health.PollMetrics;
import io.github.scheduledeventsbridge.imds.ImdsPoll;
import io.github.scheduledeventsbridge.imds.ImdsResponse;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.identity.IdentitySettings;
import io.github.scheduledeventsbridge.identity.ManagedIdentity;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.state.ObservationWatch;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.transitions.TransitionLog;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

import java.time.Clock;
import java.util.Optional;

/** The poll's beans (routes/poll.yaml) and the state it keeps: identity, journal, outbox spool. */
public class PollConfiguration implements CamelConfiguration {

    /** The last known identity (state dir) answers for this VM until IMDS instance metadata does. */
    /** The VM's managed identity (bridge.imds.identity-url), shared by the approval queue and Event Grid topics. */
    @BindToRegistry
    public ManagedIdentity managedIdentity(CamelContext context, Clock clock) {
        return new ManagedIdentity(() -> IdentitySettings.read(new SettingsReader(
                key -> context.getPropertiesComponent().resolveProperty(key).orElse(null))), clock);
    }

    @BindToRegistry
    public VmIdentity vmIdentity(CamelContext context, BridgeSettings settings, Clock clock) {
        return new VmIdentity(clock, settings.stateDir(), BridgeConfiguration.platform(context));
    }

    @BindToRegistry
    public StorageHealth storageHealth(Clock clock) {
        return new StorageHealth(clock);
    }

    @BindToRegistry
    public TransitionJournal journal(CamelContext context, BridgeSettings settings, Clock clock, VmIdentity identity,
                                     StorageHealth storage) {
        // Tests bind their own "bootTime"; the agent asks the platform.
        BootTime bootTime = Optional.ofNullable(context.getRegistry().lookupByNameAndType("bootTime", BootTime.class))
                .orElseGet(BridgeConfiguration.platform(context)::bootTime);
        return new TransitionJournal(settings.stateDir(), new TransitionDetector(), new CloudEventFactory(clock, identity),
                new ResourceFilter(ResourceFilter.mode(settings.filterResources()), identity), clock,
                new ObservationWatch(ObservationWatch.maxGap(settings.imds().pollInterval()), bootTime, clock), storage)
                .loggingTo(new TransitionLog(context)::record);
    }

    @BindToRegistry
    public Spool spool(BridgeSettings settings, Clock clock) {
        return new Spool(settings.stateDir().resolve("spool"), clock);
    }

    @BindToRegistry
    public PollBackoff pollBackoff(BridgeSettings settings, Clock clock) {
        return new PollBackoff(clock, settings.imds().pollInterval(), settings.imds().maxBackoff());
    }

    /** The GET's two steps, with the poll's meters. */
    @BindToRegistry
    public ImdsPoll imdsPoll(CamelContext context, BridgeSettings settings, PollBackoff backoff) {
        PollMetrics metrics = new PollMetrics(context);
        return new ImdsPoll(new ImdsResponse(settings.imds().maxDocumentSize()), backoff, settings.imds(),
                metrics::started, metrics::answered, metrics::succeeded);
    }
}
