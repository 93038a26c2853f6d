package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;

import java.net.URI;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The webhook targets, the key their messages are signed with, which transitions they get, and how many
 * messages each target is sent at a time ({@code concurrency}, each for another event).
 */
public record WebhookSettings(List<WebhookTarget> targets, String secret, FilterSettings filter, int concurrency,
                              String eventGridKey, String eventGridClientId) {

    /**
     * The Event Grid topics' access key (sent as {@code aeg-sas-key}); empty: the VM's managed identity, the
     * user-assigned one whose client id is {@code bridge.eventgrid.client-id}, or else the system-assigned one.
     */
    public static final String EVENT_GRID_KEY = "bridge.eventgrid.key";

    /** A target is never sent more than this many messages at a time. */
    static final int MAX_CONCURRENCY = 32;

    public WebhookSettings(List<WebhookTarget> targets, String secret, FilterSettings filter) {
        this(targets, secret, filter, 1, "", "");
    }

    public WebhookSettings(List<WebhookTarget> targets, String secret, FilterSettings filter, int concurrency) {
        this(targets, secret, filter, concurrency, "", "");
    }

    public static WebhookSettings read(SettingsReader r) {
        long concurrency = r.positiveLong("bridge.webhook.concurrency", 4);
        if (concurrency > MAX_CONCURRENCY) {
            throw new BadConfigurationException("bridge.webhook.concurrency",
                    concurrency + " is more than " + MAX_CONCURRENCY);
        }
        return new WebhookSettings(targets(r, "bridge.webhook.urls"), r.string("bridge.webhook.secret", ""),
                FilterSettings.read(r, "bridge.webhook.filter", "", ""), (int) concurrency,
                r.string(EVENT_GRID_KEY, "").strip(), r.string("bridge.eventgrid.client-id", "").strip());
    }

    public List<URI> urls() {
        return targets.stream().map(WebhookTarget::url).toList();
    }

    /** Whether a target is an Event Grid topic. */
    public boolean hasEventGridTargets() {
        return targets.stream().anyMatch(t -> t.format().eventGrid());
    }

    @Override
    public String toString() {
        return "webhooks " + targets;
    }

    /**
     * {@code [slack:|teams:|cloudevents:|eventgrid:|eventgrid-cloudevents:]https://…}; Slack and Teams URLs are also
     * recognised by host, Event Grid topics only by their prefix.
     */
    static List<WebhookTarget> targets(SettingsReader r, String key) {
        List<WebhookTarget> targets = Arrays.stream(r.string(key, "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty())
                .map(s -> target(key, s)).distinct().toList();
        // Their spools would be one directory: the same target, configured twice with other credentials.
        Map<String, WebhookTarget> seen = new HashMap<>();
        for (WebhookTarget target : targets) {
            if (seen.putIfAbsent(target.identity(true), target) != null) {
                throw new BadConfigurationException(key, target + " is listed twice, with different credentials");
            }
        }
        return targets;
    }

    private static boolean loopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]");
    }

    private static WebhookTarget target(String key, String value) {
        for (WebhookFormat format : WebhookFormat.values()) {
            String prefix = format.prefix();
            if (value.toLowerCase(Locale.ROOT).startsWith(prefix)) {
                URI url = SettingsReader.parseHttpUrl(key, value.substring(prefix.length()));
                if (format.eventGrid() && !url.getScheme().equalsIgnoreCase("https") && !loopback(url.getHost())) {
                    // Its key or token would cross the network readable.
                    throw new BadConfigurationException(key, "an Event Grid topic is reached over https://, not "
                            + url.getScheme() + "://" + url.getHost());
                }
                return new WebhookTarget(url, format);
            }
        }
        URI url = SettingsReader.parseHttpUrl(key, value);
        String host = url.getHost().toLowerCase(Locale.ROOT);
        if (host.equals("hooks.slack.com")) {
            return new WebhookTarget(url, WebhookFormat.SLACK);
        }
        if (host.endsWith(".webhook.office.com") || host.equals("outlook.office.com")
                || host.endsWith(".logic.azure.com")) {
            return new WebhookTarget(url, WebhookFormat.TEAMS);
        }
        return new WebhookTarget(url, WebhookFormat.CLOUDEVENTS);
    }
}
