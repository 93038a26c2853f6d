package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.approvalqueue.ApprovalQueueReader;
import io.github.scheduledeventsbridge.approvalqueue.QueueCredential;
import io.github.scheduledeventsbridge.approvalqueue.QueueDeadLetters;
import io.github.scheduledeventsbridge.approvalqueue.QueueOutcomes;
import io.github.scheduledeventsbridge.approvalqueue.QueueSettings;
import io.github.scheduledeventsbridge.approvalqueue.SignedEnvelope;
import io.github.scheduledeventsbridge.approvalqueue.StorageQueue;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.identity.ManagedIdentity;
import io.github.scheduledeventsbridge.identity.ManagedIdentityTokens;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.logging.Redaction;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Approvals from an Azure Storage queue (routes/approval-queue.yaml, docs/approvals.md): its settings (also whether
 * the approval API listens at all), and, only with a queue URL, its reader. Says at start which ways approvals can
 * arrive. The route starts with Camel's routes; it receives nothing until IMDS has answered in this run.
 */
public class ApprovalQueueConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalQueueConfiguration.class);
    /** Tests bind an SSLContext by this name: the one certificate that queue client alone trusts. */
    public static final String TLS_BEAN = "approvalQueueTls";

    @BindToRegistry
    public QueueSettings approvalQueueSettings(CamelContext context, VmIdentity identity) {
        SettingsReader reader = new SettingsReader(key -> context.getPropertiesComponent().resolveProperty(key).orElse(null),
                BridgeConfiguration.platform(context));
        QueueSettings settings = QueueSettings.read(reader);
        Redaction.secret(settings.connectionString());
        for (String part : settings.connectionString().split(";")) {
            int eq = part.indexOf('=');
            if (eq > 0 && part.substring(0, eq).trim().matches("(?i)AccountKey|SharedAccessSignature")) {
                Redaction.secret(part.substring(eq + 1).trim());
            }
        }
        if (settings.enabled() && (!settings.namedByVm() || identity.vm() != null)) {
            settings.queueUrl(identity.vm() == null ? null : identity.vm().name()); // a bad name is refused now
        }
        return settings;
    }

    @BindToRegistry
    public ApprovalQueueReader approvalQueueReader(CamelContext context, BridgeSettings bridge, QueueSettings settings,
                                                   VmIdentity identity, PollBackoff pollBackoff, Clock clock,
                                                   ManagedIdentity managedIdentity) {
        if (!settings.enabled()) {
            return null;
        }
        ManagedIdentityTokens tokens = settings.credential() == QueueSettings.Credential.MANAGED_IDENTITY
                ? managedIdentity.tokens() : null;
        QueueCredential credential = tokens != null ? new QueueCredential.ManagedIdentity(tokens, settings.clientId())
                : settings.connectionStringCredential();
        SSLContext tls = context.getRegistry().lookupByNameAndType(TLS_BEAN, SSLContext.class);
        if (tls == null) {
            try {
                tls = SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        SSLContext queueTls = tls;
        QueueOutcomes outcomes = new QueueOutcomes(bridge.stateDir(), 10_000, clock);
        return new ApprovalQueueReader(settings, url -> new StorageQueue(url, credential, queueTls, settings.timeout(), clock),
                new SignedEnvelope(new WebhookSigner(bridge.approval().secret(), clock)), outcomes,
                new QueueDeadLetters(bridge.stateDir(), clock), identity, pollBackoff, tokens, clock,
                () -> context.getRegistry().findSingleByType(MeterRegistry.class));
    }

    @Override
    public void configure(CamelContext context) {
        QueueSettings queue = context.getRegistry().findSingleByType(QueueSettings.class);
        BridgeSettings bridge = context.getRegistry().findSingleByType(BridgeSettings.class);
        // Read by the queue route's precondition.
        context.getPropertiesComponent().addOverrideProperty("bridge.approval.queue.enabled", Boolean.toString(queue.enabled()));
        List<String> ways = new ArrayList<>();
        boolean secret = !bridge.approval().secret().isEmpty();
        if (secret && queue.httpEnabled()) {
            ways.add("over HTTP" + (bridge.approval().tls().enabled() ? "S" : "") + " on port " + bridge.approval().listener().port());
        }
        if (queue.enabled()) {
            ways.add("from the queue " + queue.url() + " (" + (queue.credential() == QueueSettings.Credential.MANAGED_IDENTITY
                    ? (queue.clientId().isEmpty() ? "system-assigned identity" : "managed identity " + queue.clientId())
                    : "connection string") + ")");
        }
        String remote = ways.isEmpty() ? "no remote approval"
                + (secret ? " (bridge.approval.http.enabled=false and no bridge.approval.queue.url)" : " (no bridge.approval.secret)")
                : "remote approvals " + String.join(" and ", ways);
        LOG.info("Approvals: {}; {}", remote, bridge.approval().auto().userInitiated() || bridge.approval().auto().freezeMaxSeconds() != null
                || !bridge.approval().auto().eventTypes().isEmpty() ? "rules approve too (Auto-approval above)" : "no approval by rule");
        if (!queue.httpEnabled() && !secret) {
            LOG.debug("bridge.approval.http.enabled=false has no effect without a secret");
        }
    }

    /** Whether the approval API may open its port (ActionConfiguration asks). */
    static boolean httpEnabled(CamelContext context) {
        QueueSettings queue = context.getRegistry().findSingleByType(QueueSettings.class);
        return queue == null || queue.httpEnabled();
    }

}
