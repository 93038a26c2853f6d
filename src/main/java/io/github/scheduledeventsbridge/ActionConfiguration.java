package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.action.ActionRunner;
import io.github.scheduledeventsbridge.action.ActionState;
import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.approval.ApprovalAudit;
import io.github.scheduledeventsbridge.approval.ApprovalGate;
import io.github.scheduledeventsbridge.approval.ApprovalMetrics;
import io.github.scheduledeventsbridge.approval.ApprovalPolicy;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.approval.ApprovalSettings;
import io.github.scheduledeventsbridge.approval.Approvals;
import io.github.scheduledeventsbridge.approval.AutoApprover;
import io.github.scheduledeventsbridge.approval.ReplayCache;
import io.github.scheduledeventsbridge.approval.WithheldApprovals;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import org.apache.camel.BeanInject;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;

/**
 * What the agent does about an event: the prepare/recover runner (always bound; idle without commands), the drain
 * signal, the remote approval API (only with a secret: without one its routes are not created and its port is not
 * opened) and auto-approval by policy. {@link StartOrder} opens the ports.
 */
public class ActionConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeConfiguration.class);

    @BeanInject
    BridgeSettings settings;
    @BeanInject
    Clock clock;
    @BeanInject
    TransitionJournal journal;

    private boolean remote() {
        return !settings.approval().secret().isEmpty();
    }

    @BindToRegistry
    public ActionRunner actionRunner(CamelContext context, VmIdentity identity) {
        ActionRunner runner = new ActionRunner(settings.actions(), new ActionState(settings.stateDir()), identity,
                journal, context, clock);
        if (settings.actions().any()) {
            LOG.info("Actions on this VM: {}", runner.describe());
        }
        return runner;
    }

    @BindToRegistry
    public DrainSignal drainSignal(VmIdentity identity) {
        return new DrainSignal(journal, identity, settings.actions().drainLeadTime(), clock);
    }

    @BindToRegistry
    public ApprovalAudit approvalAudit() {
        return new ApprovalAudit(clock, 20);
    }

    /** bridge.approvals, counted by every way into approvals; its counters exist (at 0) from the start. */
    @BindToRegistry
    public ApprovalMetrics approvalMetrics(CamelContext context) {
        return new ApprovalMetrics(context).registerMeters(autoApprovalPolicy().hasRules());
    }

    /** The steps every approval shares, whatever its origin (routes/approvals.yaml, direct:approve). */
    @BindToRegistry
    public Approvals approvals(ApprovalAudit audit, ApprovalMetrics metrics) {
        return new Approvals(journal, audit, metrics);
    }

    @BindToRegistry
    public ApprovalGate approvalGate(ApprovalAudit audit, ApprovalMetrics metrics) {
        return remote() ? new ApprovalGate(new WebhookSigner(settings.approval().secret(), clock), clock,
                ReplayCache.inStateDir(settings.stateDir(), 10_000, ApprovalGate.WINDOW), journal, audit, metrics) : null;
    }

    /** The agent's own HTTP port (http.HttpPort) rather than platform-http: see ApprovalServer for the limits it keeps. */
    @BindToRegistry(ApprovalServer.BEAN_NAME)
    public ApprovalServer approvalServer(CamelContext context, ApprovalAudit audit, ApprovalMetrics metrics) {
        // bridge.approval.http.enabled=false: approvals come only from the queue (or by rule), no port is opened.
        return remote() && ApprovalQueueConfiguration.httpEnabled(context) ? new ApprovalServer(context,
                settings.approval().listener(), settings.approval().tls(),
                settings.imds().timeout().toMillis(), audit, metrics) : null;
    }

    @BindToRegistry
    public AutoApprover autoApprover(VmIdentity identity, ApprovalMetrics metrics) {
        ApprovalSettings.Auto auto = settings.approval().auto();
        ApprovalPolicy policy = autoApprovalPolicy();
        if (policy.hasRules()) {
            LOG.info("Auto-approval{}: {}", auto.dryRun() ? " (DRY RUN: nothing is sent to IMDS)" : "", policy);
        }
        return new AutoApprover(policy, auto.dryRun(), identity, journal, clock, new WithheldApprovals(metrics));
    }

    private ApprovalPolicy autoApprovalPolicy() {
        ApprovalSettings.Auto auto = settings.approval().auto();
        return new ApprovalPolicy(auto.userInitiated(), auto.freezeMaxSeconds(), auto.eventTypes(), auto.leaderOnly());
    }

    @Override
    public void configure(CamelContext context) {
        // Read by the approval routes' precondition.
        context.getPropertiesComponent().addOverrideProperty("bridge.approval.enabled", Boolean.toString(remote()));
        if (!remote()) {
            LOG.info("Remote approval API off (bridge.approval.secret is not set)");
        }
    }
}
