package io.github.scheduledeventsbridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * Every {@code bridge.*} key, read once and checked before anything starts. Values come from
 * Camel's properties (config file, then environment variables, then -D system properties).
 */
public record BridgeSettings(
        URI imdsUrl,
        String apiVersion,
        Duration pollInterval,
        Duration imdsTimeout,
        Duration imdsFirstCallTimeout,
        Duration imdsMaxBackoff,
        long imdsMaxDocumentSize,
        URI instanceUrl,
        String instanceApiVersion,
        Path stateDir,
        String filterResources,
        List<WebhookTarget> webhookTargets,
        String webhookSecret,
        FilterSettings webhookFilter,
        EventHubsSettings eventHubs,
        EmailSettings email,
        int approvalPort,
        String approvalSecret,
        AutoApprovalSettings autoApproval,
        TlsSettings approvalTls,
        ApprovalListener approvalListener,
        Duration healthImdsStaleAfter,
        long healthSpoolThreshold,
        Duration healthSinkStaleAfter,
        Duration deliveryInitialBackoff,
        Duration deliveryMaxBackoff,
        Duration deliveryDeadLetterAfter,
        boolean simulatorEnabled,
        int simulatorPort,
        double simulatorSpeed,
        List<String> simulatorScenarios,
        boolean simulatorLoop,
        ManagementSettings management,
        io.github.scheduledeventsbridge.action.ActionSettings actions) {

    /** IMDS allows 5 requests per second. */
    public static final long MIN_POLL_INTERVAL_MS = 200;

    public static final Set<String> TRANSITIONS =
            Set.of("Scheduled", "Started", "Rescheduled", "Completed", "Cancelled", "Approved",
                    "ActionSucceeded", "ActionFailed");
    public static final Set<String> EVENT_TYPES = Set.of("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate");

    /** How a webhook target wants its messages: CloudEvents (default), or a chat tool's own format. */
    public enum WebhookFormat { CLOUDEVENTS, SLACK, TEAMS }

    /**
     * One webhook target. {@code url} is as configured, credentials included: only {@link #requestUrl()},
     * {@link #basicAuthorization()} and {@link #toString()} (host only) leave this record.
     */
    public record WebhookTarget(URI url, WebhookFormat format) {
        @Override
        public String toString() {
            return format.name().toLowerCase(Locale.ROOT) + " " + redact(url.toString());
        }

        /** Where requests go: the URL exactly as configured (query and its encoding untouched) minus {@code user:password@}. */
        public String requestUrl() {
            return url.getScheme() + "://" + hostAndPort() + (url.getRawPath() == null ? "" : url.getRawPath())
                    + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
        }

        /** {@code user:password@} in the URL becomes HTTP Basic authentication (RFC 7617), or nothing. */
        public java.util.Optional<String> basicAuthorization() {
            String userInfo = url.getUserInfo();   // percent-decoded
            if (userInfo == null) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of("Basic " + java.util.Base64.getEncoder()
                    .encodeToString(userInfo.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }

        /**
         * What names this target's spool: format, scheme, host, port and path. Not the query nor the credentials,
         * so that rotating a token ({@code ?code=}, {@code sig=}, {@code user:password@}) keeps the messages waiting.
         */
        public String identity() {
            return identity(false);
        }

        /** The identity with the query too, for two targets that differ only there. */
        public String identity(boolean withQuery) {
            String base = format.name() + " " + url.getScheme().toLowerCase(Locale.ROOT) + "://"
                    + url.getHost().toLowerCase(Locale.ROOT) + ":" + port() + (url.getRawPath() == null ? "" : url.getRawPath());
            return withQuery && url.getRawQuery() != null ? base + "?" + url.getRawQuery() : base;
        }

        private int port() {
            return url.getPort() != -1 ? url.getPort() : url.getScheme().equalsIgnoreCase("https") ? 443 : 80;
        }

        private String hostAndPort() {
            return url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort());
        }
    }

    /** Per-sink filter: empty sets mean "all". */
    public record FilterSettings(Set<String> transitions, Set<String> eventTypes, boolean ownOnly) {
    }

    /** Event Hubs by connection string, or by the VM's managed identity (namespace + hub name). */
    public record EventHubsSettings(String connectionString, String namespace, String hubName, FilterSettings filter) {
        public boolean enabled() {
            return !connectionString.isEmpty() || !namespace.isEmpty();
        }

        public boolean managedIdentity() {
            return connectionString.isEmpty() && !namespace.isEmpty();
        }

        @Override
        public String toString() {
            return managedIdentity() ? "Event Hubs " + namespace + "/" + hubName + " (managed identity)"
                    : enabled() ? "Event Hubs " + EventHubsSettings.endpointOf(connectionString) + " (connection string)"
                    : "Event Hubs disabled";
        }

        /** The namespace host and hub of a connection string, never its key. */
        public static String endpointOf(String connectionString) {
            String endpoint = "?";
            String entity = "?";
            for (String part : connectionString.split(";")) {
                String[] kv = part.split("=", 2);
                if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("Endpoint")) {
                    endpoint = kv[1].trim();
                } else if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("EntityPath")) {
                    entity = kv[1].trim();
                }
            }
            return endpoint + "/" + entity;
        }
    }

    public record EmailSettings(String host, int port, String username, String password, String from,
                                List<String> to, boolean starttls, FilterSettings filter) {
        public boolean enabled() {
            return !host.isEmpty();
        }

        @Override
        public String toString() {
            return enabled() ? "SMTP " + host + ":" + port + (starttls ? " (STARTTLS)" : "") + " to " + to
                    : "email disabled";
        }
    }

    @Override
    public String toString() {
        // Records print every component; this one holds secrets.
        return "BridgeSettings[imds " + imdsUrl + ", every " + pollInterval.toMillis() + " ms, state " + stateDir
                + ", webhooks " + webhookTargets + ", " + eventHubs + ", " + email
                + ", approvals " + (approvalSecret.isEmpty() ? "off" : "on port " + approvalPort) + "]";
    }

    public List<URI> webhookUrls() {
        return webhookTargets.stream().map(WebhookTarget::url).toList();
    }

    public static BridgeSettings read(Function<String, String> properties) {
        SettingsReader r = new SettingsReader(properties);
        Duration pollInterval = r.millis("bridge.imds.poll-interval", 1000);
        if (pollInterval.toMillis() < MIN_POLL_INTERVAL_MS) {
            throw new BadConfigurationException("bridge.imds.poll-interval",
                    pollInterval.toMillis() + " is below the minimum of 200 ms (IMDS allows 5 requests per second)");
        }
        String filter = r.string("bridge.filter.resources", "all").toLowerCase(Locale.ROOT);
        if (!filter.equals("all") && !filter.equals("own")) {
            throw new BadConfigurationException("bridge.filter.resources", "'" + filter + "' is neither 'all' nor 'own'");
        }
        Duration initialBackoff = r.millis("bridge.delivery.initial-backoff", 500);
        Duration maxBackoff = r.millis("bridge.delivery.max-backoff", 5_000);
        if (initialBackoff.compareTo(maxBackoff) > 0) {
            throw new BadConfigurationException("bridge.delivery.initial-backoff", initialBackoff.toMillis()
                    + " is above bridge.delivery.max-backoff (" + maxBackoff.toMillis() + ")");
        }
        return new BridgeSettings(
                r.httpUrl("bridge.imds.url", "http://169.254.169.254/metadata/scheduledevents"),
                r.nonBlank("bridge.imds.api-version", "2020-07-01"),
                pollInterval,
                r.millis("bridge.imds.timeout", 10_000),
                r.millis("bridge.imds.first-call-timeout", 120_000),
                r.millis("bridge.imds.max-backoff", 30_000),
                r.positiveLong("bridge.imds.max-document-size", 1_048_576),
                r.httpUrl("bridge.imds.instance-url", "http://169.254.169.254/metadata/instance/compute"),
                r.nonBlank("bridge.imds.instance-api-version", "2021-02-01"),
                r.writableDirectory("bridge.state.dir", "./data"),
                filter,
                r.webhookTargets("bridge.webhook.urls"),
                r.string("bridge.webhook.secret", ""),
                r.filter("bridge.webhook.filter", "", ""),
                eventHubs(r),
                email(r),
                r.port("bridge.approval.port", 8089),
                SecretStrength.approvalSecret(r.string("bridge.approval.secret", "")),
                autoApproval(r),
                tls(r),
                approvalListener(r),
                r.millis("bridge.health.imds-stale-after", 30_000),
                r.positiveLong("bridge.health.spool-threshold", 1_000),
                r.millis("bridge.health.sink-stale-after", 300_000),
                initialBackoff,
                maxBackoff,
                r.millis("bridge.delivery.dead-letter-after", 3_600_000),
                r.bool("bridge.simulator.enabled", false),
                r.port("bridge.simulator.port", 0),
                r.positiveDouble("bridge.simulator.speed", 60),
                r.list("bridge.simulator.scenarios"),
                r.bool("bridge.simulator.loop", true),
                management(r),
                io.github.scheduledeventsbridge.action.ActionSettings.read(r));
    }

    /**
     * Health, metrics and the Hawtio console on one HTTP port; the console only with credentials, and read-only
     * unless {@code readOnly} is false.
     */
    public record ManagementSettings(boolean enabled, String host, int port, String username, String password,
                                     boolean readOnly) {
        public boolean credentials() {
            return !username.isEmpty();
        }

        @Override
        public String toString() {
            return enabled ? "management on " + host + ":" + port + (credentials() ? " (user " + username + ")" : "")
                    + (readOnly ? "" : ", console not read-only") : "management off";
        }
    }

    /** HTTP Basic over a port that may be reachable from the network: long enough to resist guessing. */
    public static final int MIN_MANAGEMENT_PASSWORD_LENGTH = 16;

    private static ManagementSettings management(SettingsReader r) {
        String host = r.resolvableHost("bridge.management.host", "127.0.0.1");
        String username = r.string("bridge.management.username", "");
        String password = r.string("bridge.management.password", "");
        if (username.contains(":")) {
            throw new BadConfigurationException("bridge.management.username", "must not contain ':' (HTTP Basic)");
        }
        if (username.isEmpty() != password.isEmpty()) {
            throw username.isEmpty()
                    ? new BadConfigurationException("bridge.management.username", "is required when bridge.management.password is set")
                    : new BadConfigurationException("bridge.management.password", "is required when bridge.management.username is set");
        }
        if (!password.isEmpty()) {
            checkManagementPassword(password);
        }
        return new ManagementSettings(r.bool("bridge.management.enabled", true), host,
                r.port("bridge.management.port", 8080), username, password, r.bool("bridge.management.read-only", true));
    }

    /** Refuses short passwords and the examples' placeholders; the message never repeats the password. */
    private static void checkManagementPassword(String password) {
        String lower = password.toLowerCase(Locale.ROOT);
        if (lower.startsWith("change-me") || lower.startsWith("changeme") || lower.contains("example")) {
            throw new BadConfigurationException("bridge.management.password",
                    "is a placeholder from the examples; set a random one (e.g. openssl rand -base64 24)");
        }
        if (password.length() < MIN_MANAGEMENT_PASSWORD_LENGTH) {
            throw new BadConfigurationException("bridge.management.password", "is " + password.length()
                    + " characters long; at least " + MIN_MANAGEMENT_PASSWORD_LENGTH + " are required");
        }
        if (password.chars().distinct().count() < 4) {
            throw new BadConfigurationException("bridge.management.password",
                    "repeats too few characters to resist guessing; set a random one (e.g. openssl rand -base64 24)");
        }
    }

    private static EventHubsSettings eventHubs(SettingsReader r) {
        String connectionString = r.string("bridge.eventhubs.connection-string", "");
        String namespace = r.string("bridge.eventhubs.namespace", "");
        String hub = r.string("bridge.eventhubs.name", "");
        if (!connectionString.isEmpty()) {
            if (!namespace.isEmpty()) {
                throw new BadConfigurationException("bridge.eventhubs.namespace",
                        "set either a connection string or a namespace (managed identity), not both");
            }
            String lower = connectionString.toLowerCase(Locale.ROOT);
            if (!lower.contains("endpoint=") || !lower.contains("entitypath=")) {
                throw new BadConfigurationException("bridge.eventhubs.connection-string",
                        "must contain Endpoint=… and EntityPath=… (the hub)");
            }
        } else if (!namespace.isEmpty() && hub.isEmpty()) {
            throw new BadConfigurationException("bridge.eventhubs.name",
                    "is required with bridge.eventhubs.namespace (managed identity)");
        }
        return new EventHubsSettings(connectionString, namespace, hub, r.filter("bridge.eventhubs.filter", "", ""));
    }

    /** Where the approval API listens and its limits (see approval/ApprovalServer). */
    public record ApprovalListener(String host, int port, int maxConnections, Duration requestTimeout) {
    }

    private static ApprovalListener approvalListener(SettingsReader r) {
        String host = r.resolvableHost("bridge.approval.host", "0.0.0.0");
        long max = r.positiveLong("bridge.approval.max-connections", 64);
        if (max > 1024) {
            throw new BadConfigurationException("bridge.approval.max-connections",
                    max + " is above 1024 (each connection may hold a 64 KiB body in memory)");
        }
        return new ApprovalListener(host, r.port("bridge.approval.port", 8089), (int) max,
                r.millis("bridge.approval.request-timeout", 10_000));
    }

    /** TLS for the approval API: a keystore holding the server's key and certificate. */
    public record TlsSettings(Path keystore, String password, String type) {
        public boolean enabled() {
            return keystore != null;
        }

        @Override
        public String toString() {
            return enabled() ? "TLS with " + keystore + " (" + type + ")" : "plain HTTP";
        }
    }

    private static TlsSettings tls(SettingsReader r) {
        String keystore = r.string("bridge.approval.tls.keystore", "");
        if (keystore.isEmpty()) {
            return new TlsSettings(null, "", "PKCS12");
        }
        Path path = Path.of(keystore).toAbsolutePath();
        if (!Files.isReadable(path)) {
            throw new BadConfigurationException("bridge.approval.tls.keystore", path + " is not a readable file");
        }
        return new TlsSettings(path, r.string("bridge.approval.tls.keystore-password", ""),
                r.string("bridge.approval.tls.keystore-type", "PKCS12"));
    }

    /** Auto-approval rules (Microsoft's sample rules), all off by default. */
    public record AutoApprovalSettings(boolean userInitiated, Integer freezeMaxSeconds, Set<String> eventTypes,
                                       boolean leaderOnly, boolean dryRun) {
    }

    private static AutoApprovalSettings autoApproval(SettingsReader r) {
        String freeze = r.string("bridge.approval.auto.freeze-max-seconds", "");
        Integer freezeMax = null;
        if (!freeze.isEmpty()) {
            try {
                freezeMax = Integer.parseInt(freeze);
            } catch (NumberFormatException e) {
                throw new BadConfigurationException("bridge.approval.auto.freeze-max-seconds", "'" + freeze + "' is not a number of seconds");
            }
            if (freezeMax < 1) {
                throw new BadConfigurationException("bridge.approval.auto.freeze-max-seconds", freeze + " must be at least 1");
            }
        }
        return new AutoApprovalSettings(r.bool("bridge.approval.auto.user-initiated", false), freezeMax,
                r.names("bridge.approval.auto.event-types", "", EVENT_TYPES),
                r.bool("bridge.approval.auto.leader-only", true), r.bool("bridge.approval.auto.dry-run", false));
    }

    /** By default, mail only what wakes a person: impactful events being scheduled or starting. */
    static final String EMAIL_DEFAULT_TRANSITIONS = "Scheduled,Started";
    static final String EMAIL_DEFAULT_EVENT_TYPES = "Reboot,Redeploy,Preempt,Terminate";

    private static EmailSettings email(SettingsReader r) {
        String host = r.string("bridge.email.host", "");
        int port = r.port("bridge.email.port", 587);
        String from = r.string("bridge.email.from", "");
        List<String> to = r.list("bridge.email.to");
        if (!host.isEmpty()) {
            if (!EMAIL.matcher(from).matches()) {
                throw new BadConfigurationException("bridge.email.from",
                        from.isEmpty() ? "is required when bridge.email.host is set" : "'" + from + "' is not an email address");
            }
            if (to.isEmpty()) {
                throw new BadConfigurationException("bridge.email.to", "is required when bridge.email.host is set");
            }
            to.stream().filter(a -> !EMAIL.matcher(a).matches()).findFirst().ifPresent(a -> {
                throw new BadConfigurationException("bridge.email.to", "'" + a + "' is not an email address");
            });
        }
        String username = r.string("bridge.email.username", "");
        String password = r.string("bridge.email.password", "");
        if (username.isEmpty() != password.isEmpty()) {
            throw username.isEmpty()
                    ? new BadConfigurationException("bridge.email.username", "is required when bridge.email.password is set")
                    : new BadConfigurationException("bridge.email.password", "is required when bridge.email.username is set");
        }
        return new EmailSettings(host, port, username, password,
                from, to, r.bool("bridge.email.starttls", true),
                r.filter("bridge.email.filter", EMAIL_DEFAULT_TRANSITIONS, EMAIL_DEFAULT_EVENT_TYPES));
    }

    private static final java.util.regex.Pattern EMAIL = java.util.regex.Pattern.compile("[^@\\s,<>]+@[^@\\s,<>]+\\.[^@\\s,<>]+");

    /** Webhook URLs often carry their secret in the path or query (Slack, Teams): log only the host. */
    public static String redact(String url) {
        try {
            URI uri = new URI(url);
            if (uri.getHost() != null) {
                return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + "/…";
            }
        } catch (URISyntaxException ignored) {
            // fall through
        }
        return "<unparsable URL>";
    }
}
