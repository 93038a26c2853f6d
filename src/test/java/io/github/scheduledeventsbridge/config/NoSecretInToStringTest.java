package io.github.scheduledeventsbridge.config;

import io.github.scheduledeventsbridge.http.HttpPort;
import org.apache.camel.component.properties.PropertiesComponent;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The values that carry the environment or a password do not print them, should one ever reach a log line. */
class NoSecretInToStringTest {

    private static final String SECRET = "approval-secret-0123456789abcdef";

    @Test
    void theEnvironmentAndTheKeystorePasswordStayOutOfToString() {
        Map<String, String> environment = Map.of("BRIDGE_APPROVAL_SECRET", SECRET);
        assertThat(new EnvironmentVariablesSource(environment).toString()).doesNotContain(SECRET);
        assertThat(new ConfigurationSources(new PropertiesComponent(), environment).toString()).doesNotContain(SECRET);
        assertThat(new HttpPort.Tls(Path.of("keystore.p12"), SECRET, "PKCS12").toString())
                .doesNotContain(SECRET).contains("keystore.p12");
    }
}
