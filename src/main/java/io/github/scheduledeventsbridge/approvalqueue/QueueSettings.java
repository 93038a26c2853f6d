package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.net.URI;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Approvals from an Azure Storage queue (docs/approvals.md): the queue's URL ({@code {vmName}} filled in with this
 * VM's name as a queue name), how the agent authenticates, how often it receives. Off while the URL is empty.
 */
public record QueueSettings(String url, Credential credential, String connectionString, String clientId,
                            Duration pollInterval, int maxDequeue, Duration timeout, boolean httpEnabled) {

    public static final String VM_NAME = "{vmName}";

    public enum Credential { MANAGED_IDENTITY, CONNECTION_STRING }

    public static QueueSettings read(SettingsReader r) {
        String url = r.string("bridge.approval.queue.url", "").strip();
        String kind = r.string("bridge.approval.queue.credential", "managed-identity").strip();
        Credential credential = switch (kind) {
            case "managed-identity" -> Credential.MANAGED_IDENTITY;
            case "connection-string" -> Credential.CONNECTION_STRING;
            default -> throw new BadConfigurationException("bridge.approval.queue.credential",
                    "'" + kind + "' is neither managed-identity nor connection-string");
        };
        String connectionString = r.string("bridge.approval.queue.connection-string", "").strip();
        long maxDequeue = r.positiveLong("bridge.approval.queue.max-dequeue", 5);
        Duration pollInterval = r.millis("bridge.approval.queue.poll-interval", 5000);
        if (pollInterval.toMillis() < 100) {
            throw new BadConfigurationException("bridge.approval.queue.poll-interval", pollInterval.toMillis() + " is below 100 ms");
        }
        QueueSettings settings = new QueueSettings(url, credential, connectionString,
                r.string("bridge.approval.queue.client-id", "").strip(), pollInterval, (int) Math.min(maxDequeue, 1000),
                r.millis("bridge.approval.queue.timeout", 10_000), r.bool("bridge.approval.http.enabled", true));
        if (settings.enabled()) {
            settings.check(r.string("bridge.approval.secret", "").isEmpty());
        }
        return settings;
    }

    public boolean enabled() {
        return !url.isEmpty();
    }

    private void check(boolean noSecret) {
        if (noSecret) {
            throw new BadConfigurationException("bridge.approval.queue.url",
                    "needs bridge.approval.secret: queue messages are signed with it");
        }
        URI sample = SettingsReader.parseHttpUrl("bridge.approval.queue.url", url.replace(VM_NAME, "vm"));
        if (sample.getRawQuery() != null || sample.getRawFragment() != null) {
            throw new BadConfigurationException("bridge.approval.queue.url", "must be the queue's URL without a query "
                    + "(a shared access signature goes in bridge.approval.queue.connection-string)");
        }
        if (credential == Credential.CONNECTION_STRING) {
            if (connectionString.isEmpty()) {
                throw new BadConfigurationException("bridge.approval.queue.connection-string",
                        "is required with bridge.approval.queue.credential=connection-string");
            }
            connectionStringCredential(); // refused now, not at the first receive
        } else if (!connectionString.isEmpty()) {
            throw new BadConfigurationException("bridge.approval.queue.connection-string",
                    "is set but bridge.approval.queue.credential is managed-identity: drop one of them");
        }
        boolean loopback = "127.0.0.1".equals(sample.getHost()) || "localhost".equalsIgnoreCase(sample.getHost())
                || "[::1]".equals(sample.getHost());
        if ("http".equals(sample.getScheme()) && !loopback) {
            throw new BadConfigurationException("bridge.approval.queue.url", "must be https:// (plain http only to an "
                    + "emulator on this machine)");
        }
    }

    /** The queue's URL for this VM's name, or a reason it cannot be one. */
    public URI queueUrl(String vmName) {
        String resolved = url;
        if (url.contains(VM_NAME)) {
            if (vmName == null) {
                throw new IllegalStateException("this VM's name is not known yet");
            }
            resolved = url.replace(VM_NAME, queueName(vmName));
        }
        URI uri = SettingsReader.parseHttpUrl("bridge.approval.queue.url", resolved);
        String path = uri.getPath().replaceAll("/+$", "");
        String queue = path.substring(path.lastIndexOf('/') + 1);
        if (!queue.matches("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]")) {
            throw new BadConfigurationException("bridge.approval.queue.url", "'" + queue + "' is not a valid queue name "
                    + "(3 to 63 characters of a-z, 0-9 and single hyphens, starting and ending with a letter or digit)");
        }
        return uri;
    }

    public boolean namedByVm() {
        return url.contains(VM_NAME);
    }

    /** A VM name as a queue name: lower case, every character outside [a-z0-9-] as '-'. */
    public static String queueName(String vmName) {
        return vmName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    }

    /** The connection string's account key (Shared Key) or its SharedAccessSignature. */
    public QueueCredential connectionStringCredential() {
        Map<String, String> parts = new LinkedHashMap<>();
        for (String part : connectionString.split(";")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                parts.put(part.substring(0, eq).trim().toLowerCase(Locale.ROOT), part.substring(eq + 1).trim());
            }
        }
        Optional<String> sas = Optional.ofNullable(parts.get("sharedaccesssignature"));
        if (sas.isPresent()) {
            return new QueueCredential.SharedAccessSignature(sas.get());
        }
        String account = parts.get("accountname");
        String key = parts.get("accountkey");
        if (account == null || key == null) {
            throw new BadConfigurationException("bridge.approval.queue.connection-string",
                    "has neither AccountName and AccountKey nor SharedAccessSignature");
        }
        try {
            return new QueueCredential.SharedKey(account, Base64.getDecoder().decode(key));
        } catch (IllegalArgumentException e) {
            throw new BadConfigurationException("bridge.approval.queue.connection-string", "its AccountKey is not base64");
        }
    }

    @Override
    public String toString() {
        return "QueueSettings[" + url + ", " + credential + (clientId.isEmpty() ? "" : ", client id " + clientId) + "]";
    }
}
