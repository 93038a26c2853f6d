package io.github.scheduledeventsbridge.delivery.eventhubs;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.BridgeSettings;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.delivery.Sink;
import org.apache.camel.CamelContext;
import org.apache.camel.component.azure.eventhubs.CredentialType;
import org.apache.camel.component.azure.eventhubs.EventHubsConfiguration;
import org.apache.camel.component.azure.eventhubs.EventHubsEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The camel-azure-eventhubs endpoint URIs, checked by letting Camel itself parse them. */
class EventHubsEndpointUriTest {

    private static final FilterSettings ALL = new FilterSettings(Set.of(), Set.of(), false);
    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    private static EventHubsSettings connectionString(String cs) {
        return new EventHubsSettings(cs, "", "", ALL);
    }

    private static EventHubsSettings managedIdentity(String namespace, String hub) {
        return new EventHubsSettings("", namespace, hub, ALL);
    }

    private EventHubsConfiguration parsed(String uri) {
        return camel.getEndpoint(uri, EventHubsEndpoint.class).getConfiguration();
    }

    @Test
    void aConnectionStringGoesToTheComponentUnchangedAndNeverIntoTheUri() {
        // A SAS key is base64 and may hold '+', '/' and '=': it is handed over as is, not through a URI.
        String cs = "Endpoint=sb://my-ns.servicebus.windows.net/;SharedAccessKeyName=send-only;"
                + "SharedAccessKey=a+b/c=d%20e&f==;EntityPath=scheduled-events";

        EventHubsSink.configureComponent(camel, connectionString(cs), java.time.Duration.ofSeconds(30));
        String uri = EventHubsSink.endpointUri(connectionString(cs));

        assertThat(uri).isEqualTo("azure-eventhubs:connection-string");
        assertThat(camel.getEndpoint(uri).getEndpointUri()).doesNotContain("SharedAccessKey");
        EventHubsConfiguration configuration = parsed(uri);
        assertThat(configuration.getConnectionString()).isEqualTo(cs);
        assertThat(configuration.getCredentialType()).isEqualTo(CredentialType.CONNECTION_STRING);
    }

    @Test
    void theManagedIdentityUsesNamespaceHubAndDefaultAzureCredential() {
        String uri = EventHubsSink.endpointUri(managedIdentity("my-ns", "scheduled-events"));

        assertThat(uri).isEqualTo("azure-eventhubs:my-ns/scheduled-events?credentialType=AZURE_IDENTITY");
        EventHubsConfiguration configuration = parsed(uri);
        assertThat(configuration.getNamespace()).isEqualTo("my-ns");
        assertThat(configuration.getEventHubName()).isEqualTo("scheduled-events");
        assertThat(configuration.getCredentialType()).isEqualTo(CredentialType.AZURE_IDENTITY);
        assertThat(configuration.getConnectionString()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"my-ns", "my-ns.servicebus.windows.net", "sb://my-ns.servicebus.windows.net/",
            " MY-NS.SERVICEBUS.WINDOWS.NET "})
    void theNamespaceMayBeGivenAsNameOrHost(String namespace) {
        // camel-azure-eventhubs appends ".servicebus.windows.net" itself
        assertThat(EventHubsSink.namespaceName(namespace)).isEqualToIgnoringCase("my-ns");
    }

    @Test
    void namesTheComponentCannotReachAreRefusedWithTheKey() {
        assertThatThrownBy(() -> EventHubsSink.endpointUri(managedIdentity("my-ns.servicebus.chinacloudapi.cn", "hub")))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("bridge.eventhubs.namespace").hasMessageContaining("connection-string");
        assertThatThrownBy(() -> EventHubsSink.endpointUri(managedIdentity("my-ns", "hub?x=1")))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.eventhubs.name");
    }

    @Test
    void theExampleConfigurationWorksWithEitherWayOfAuthenticating(@TempDir Path state) throws IOException {
        Properties example = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("config/eventhubs.example.properties"))) {
            example.load(in);
        }
        example.setProperty("bridge.state.dir", state.toString());
        assertThat(example.stringPropertyNames()).as("every active key is an Event Hubs filter key")
                .filteredOn(k -> k.startsWith("bridge.eventhubs"))
                .containsExactlyInAnyOrder("bridge.eventhubs.filter.transitions", "bridge.eventhubs.filter.event-types",
                        "bridge.eventhubs.filter.resources");

        Properties withConnectionString = new Properties(example); // as BRIDGE_EVENTHUBS_CONNECTION_STRING would
        withConnectionString.setProperty("bridge.eventhubs.connection-string",
                "Endpoint=sb://my-namespace.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=x=;EntityPath=h");
        EventHubsSettings cs = BridgeSettings.read(withConnectionString::getProperty).eventHubs();
        assertThat(cs.enabled()).isTrue();
        assertThat(cs.filter()).isEqualTo(ALL);
        assertThat(EventHubsSink.endpointUri(cs)).isEqualTo("azure-eventhubs:connection-string");

        Properties withIdentity = new Properties(example); // the commented managed-identity keys, uncommented
        withIdentity.setProperty("bridge.eventhubs.namespace", "my-namespace");
        withIdentity.setProperty("bridge.eventhubs.name", "scheduled-events");
        EventHubsSettings mi = BridgeSettings.read(withIdentity::getProperty).eventHubs();
        assertThat(mi.managedIdentity()).isTrue();
        assertThat(EventHubsSink.endpointUri(mi))
                .isEqualTo("azure-eventhubs:my-namespace/scheduled-events?credentialType=AZURE_IDENTITY");
    }

    @Test
    void theSinkIsBatchedAndItsDescriptionHoldsNoKey() {
        String cs = "Endpoint=sb://my-ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=SECRETKEY=;"
                + "EntityPath=hub";
        EventHubsSettings settings = connectionString(cs);

        Sink sink = EventHubsSink.create(settings, e -> true);

        assertThat(sink.id()).isEqualTo("eventhubs");
        assertThat(sink.batched()).isTrue();
        assertThat(sink.attempt()).isEqualTo("direct:eventhubs-attempt?synchronous=true");
        assertThat(sink.targetAs(EventHubsSink.Target.class).endpoint()).isEqualTo(EventHubsSink.endpointUri(settings));
        assertThat(sink.toString()).doesNotContain("SECRETKEY");
        assertThat(sink.description()).doesNotContain("SECRETKEY").contains("my-ns.servicebus.windows.net");
    }
}
