package io.github.scheduledeventsbridge.config;

import io.github.scheduledeventsbridge.BridgeSettings;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;
import io.github.scheduledeventsbridge.delivery.WebhookTarget;
import io.github.scheduledeventsbridge.testing.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sink keys: webhook formats, per-sink filters, Event Hubs and email settings. */
class SinkSettingsTest {

    @TempDir
    Path tmp;

    private BridgeSettings read(String... keyValues) {
        return Settings.read(tmp.resolve("state"), keyValues);
    }

    private void rejects(String key, String value, String reason) {
        assertThatThrownBy(() -> read(key, value)).isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining(key).hasMessageContaining(reason);
    }

    @Test
    void webhookFormatsComeFromAPrefixOrTheWellKnownHosts() {
        var targets = read("bridge.webhook.urls", "https://a.example/x, slack:https://b.example/y, "
                + "teams:https://c.example/z, https://hooks.slack.com/services/T/B/s, "
                + "https://contoso.webhook.office.com/webhookb2/x, https://prod-1.westeurope.logic.azure.com/w, "
                + "cloudevents:https://hooks.slack.com/services/T/B/other").webhook().targets();
        assertThat(targets).extracting(WebhookTarget::format).containsExactly(
                WebhookFormat.CLOUDEVENTS, WebhookFormat.SLACK, WebhookFormat.TEAMS, WebhookFormat.SLACK,
                WebhookFormat.TEAMS, WebhookFormat.TEAMS, WebhookFormat.CLOUDEVENTS);
        assertThat(targets.get(1).url().toString()).isEqualTo("https://b.example/y");
    }

    @Test
    void eventGridTopicsComeOnlyFromTheirPrefixAndOverHttps() {
        var targets = read("bridge.webhook.urls", "eventgrid:https://t.westeurope-1.eventgrid.azure.net/api/events, "
                + "EventGrid-CloudEvents:https://c.westeurope-1.eventgrid.azure.net/api/events, "
                + "https://t2.westeurope-1.eventgrid.azure.net/api/events, eventgrid:http://127.0.0.1:8443/api/events",
                "bridge.eventgrid.key", "the-topic-key").webhook();
        assertThat(targets.targets()).extracting(WebhookTarget::format).containsExactly(WebhookFormat.EVENTGRID,
                WebhookFormat.EVENTGRID_CLOUDEVENTS, WebhookFormat.CLOUDEVENTS, WebhookFormat.EVENTGRID);
        assertThat(targets.targets().get(1).toString()).startsWith("eventgrid-cloudevents https://c.westeurope-1");
        assertThat(targets.eventGridKey()).isEqualTo("the-topic-key");
        assertThat(targets.toString()).doesNotContain("the-topic-key");
        rejects("bridge.webhook.urls", "eventgrid:http://t.westeurope-1.eventgrid.azure.net/api/events",
                "an Event Grid topic is reached over https://");
        assertThat(read().webhook().eventGridKey()).isEmpty();
    }

    @Test
    void aPrefixedUrlIsStillChecked() {
        rejects("bridge.webhook.urls", "slack:ftp://x", "not an http(s) URL");
    }

    @Test
    void webhookConcurrencyIsFourByDefaultAndBounded() {
        assertThat(read().webhook().concurrency()).isEqualTo(4);
        assertThat(read("bridge.webhook.concurrency", "1").webhook().concurrency()).isEqualTo(1);
        assertThat(read("bridge.webhook.concurrency", "32").webhook().concurrency()).isEqualTo(32);
        rejects("bridge.webhook.concurrency", "0", "must be a positive number");
        rejects("bridge.webhook.concurrency", "33", "is more than 32");
        rejects("bridge.webhook.concurrency", "many", "is not a number");
    }

    @Test
    void filtersDefaultToEverythingExceptEmail() {
        BridgeSettings s = read();
        assertThat(s.webhook().filter().transitions()).isEmpty();
        assertThat(s.eventHubs().filter().eventTypes()).isEmpty();
        assertThat(s.email().filter().transitions()).containsExactlyInAnyOrder("Scheduled", "Started");
        assertThat(s.email().filter().eventTypes()).containsExactlyInAnyOrder("Reboot", "Redeploy", "Preempt", "Terminate");
    }

    @Test
    void filterNamesAreCheckedAndNormalised() {
        BridgeSettings s = read("bridge.webhook.filter.transitions", "started, COMPLETED",
                "bridge.webhook.filter.event-types", "freeze", "bridge.webhook.filter.resources", "own",
                "bridge.email.filter.transitions", "all");
        assertThat(s.webhook().filter().transitions()).isEqualTo(Set.of("Started", "Completed"));
        assertThat(s.webhook().filter().eventTypes()).isEqualTo(Set.of("Freeze"));
        assertThat(s.webhook().filter().ownOnly()).isTrue();
        assertThat(s.email().filter().transitions()).as("'all' lifts the default").isEmpty();
        rejects("bridge.webhook.filter.transitions", "Started,Finished", "'Finished' is not one of");
        rejects("bridge.eventhubs.filter.event-types", "Reboot,Shutdown", "'Shutdown' is not one of");
        rejects("bridge.email.filter.resources", "mine", "neither 'all' nor 'own'");
    }

    @Test
    void eventHubsByConnectionStringOrManagedIdentity() {
        var cs = read("bridge.eventhubs.connection-string",
                "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=S3CR3T;EntityPath=hub").eventHubs();
        assertThat(cs.enabled()).isTrue();
        assertThat(cs.managedIdentity()).isFalse();
        assertThat(cs.toString()).contains("sb://ns.servicebus.windows.net/").contains("hub").doesNotContain("S3CR3T");
        var mi = read("bridge.eventhubs.namespace", "ns.servicebus.windows.net", "bridge.eventhubs.name", "hub").eventHubs();
        assertThat(mi.managedIdentity()).isTrue();
        assertThat(read().eventHubs().enabled()).isFalse();
        rejects("bridge.eventhubs.connection-string", "SharedAccessKey=x", "Endpoint=");
        assertThatThrownBy(() -> read("bridge.eventhubs.namespace", "ns")).hasMessageContaining("bridge.eventhubs.name");
        assertThatThrownBy(() -> read("bridge.eventhubs.namespace", "ns", "bridge.eventhubs.name", "h",
                "bridge.eventhubs.connection-string", "Endpoint=sb://x/;EntityPath=h"))
                .hasMessageContaining("not both");
    }

    @Test
    void emailNeedsSenderAndRecipients() {
        var email = read("bridge.email.host", "smtp.example.com", "bridge.email.from", "seb@example.com",
                "bridge.email.to", "ops@example.com, oncall@example.com", "bridge.email.username", "seb",
                "bridge.email.password", "pw-123").email();
        assertThat(email.enabled()).isTrue();
        assertThat(email.port()).isEqualTo(587);
        assertThat(email.starttls()).isTrue();
        assertThat(email.to()).containsExactly("ops@example.com", "oncall@example.com");
        assertThat(email.toString()).doesNotContain("pw-123");
        assertThat(read().email().enabled()).isFalse();
        assertThatThrownBy(() -> read("bridge.email.host", "h", "bridge.email.to", "a@b.c"))
                .hasMessageContaining("bridge.email.from");
        assertThatThrownBy(() -> read("bridge.email.host", "h", "bridge.email.from", "a@b.c"))
                .hasMessageContaining("bridge.email.to");
        assertThatThrownBy(() -> read("bridge.email.host", "h", "bridge.email.from", "a@b.c", "bridge.email.to", "nobody"))
                .hasMessageContaining("'nobody' is not an email address");
        // A username without a password (or the reverse) can never log in: refused, not retried forever.
        assertThatThrownBy(() -> read("bridge.email.host", "h", "bridge.email.from", "a@b.c", "bridge.email.to", "d@e.f",
                "bridge.email.username", "seb"))
                .hasMessageContaining("bridge.email.password: is required when bridge.email.username is set");
        assertThatThrownBy(() -> read("bridge.email.host", "h", "bridge.email.from", "a@b.c", "bridge.email.to", "d@e.f",
                "bridge.email.password", "pw"))
                .hasMessageContaining("bridge.email.username: is required when bridge.email.password is set");
    }

    @Test
    void theSettingsThemselvesNeverPrintASecret() {
        String printed = read("bridge.webhook.secret", "whsec-1", "bridge.webhook.urls", "https://h.example/p/tok-2",
                "bridge.eventhubs.connection-string", "Endpoint=sb://x/;SharedAccessKey=key-3;EntityPath=h",
                "bridge.email.host", "h", "bridge.email.from", "a@b.c", "bridge.email.to", "d@e.f",
                "bridge.email.username", "u", "bridge.email.password", "pw-4").toString();
        assertThat(printed).doesNotContain("whsec-1", "tok-2", "key-3", "pw-4");
    }
}
