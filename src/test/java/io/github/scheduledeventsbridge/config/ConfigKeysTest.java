package io.github.scheduledeventsbridge.config;

import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one list of keys, the nearest-key hint for typos, and the precedence Camel keeps for us. */
class ConfigKeysTest {

    private final ConfigKeys keys = ConfigKeys.packaged();

    @TempDir
    Path dir;

    @Test
    void typosGetTheNearestKnownKey() {
        assertThat(keys.nearest("bridge.webhok.urls", false)).contains("bridge.webhook.urls");
        assertThat(keys.nearest("bridge.imds.poll-intervall", false)).contains("bridge.imds.poll-interval");
        assertThat(keys.nearest("BRIDGE_WEBHOOK_URL", true)).contains("BRIDGE_WEBHOOK_URLS");
        assertThat(keys.nearest("bridge.something.completely.different.here", false)).isEmpty();
    }

    @Test
    void environmentNamesAreTheKeysUpperCasedWithUnderscores() {
        assertThat(ConfigKeys.environmentName("bridge.imds.poll-interval")).isEqualTo("BRIDGE_IMDS_POLL_INTERVAL");
        assertThat(keys.byEnvironmentName("BRIDGE_IMDS_POLL_INTERVAL")).map(ConfigKeys.Key::name)
                .contains("bridge.imds.poll-interval");
        assertThat(keys.byEnvironmentName("BRIDGE_IMDS_POLL_INTERVALL")).isEmpty();
    }

    @Test
    void theListIsTheCommentedPackagedFile() {
        ConfigKeys parsed = ConfigKeys.parse(List.of(
                "## --- heading", "# what a does", "bridge.a=1", "bridge.b=", "camel.main.name=x", "# c", "bridge.c = two "));
        assertThat(parsed.all()).containsExactly(new ConfigKeys.Key("bridge.a", "1", "what a does"),
                new ConfigKeys.Key("bridge.b", "", ""), new ConfigKeys.Key("bridge.c", "two", "c"));
        assertThat(keys.isKnown("bridge.imds.url")).isTrue();
        assertThat(keys.defaultValue("bridge.imds.poll-interval")).isEqualTo("1000");
        assertThat(keys.help()).contains("bridge.imds.poll-interval=1000\n    Milliseconds between polls");
    }

    @Test
    void precedenceIsSystemPropertyThenEnvironmentThenFiles() throws Exception {
        Path file = Files.writeString(dir.resolve("a.properties"),
                "bridge.imds.poll-interval=100\nbridge.imds.timeout=111\nbridge.imds.api-version=from-file\n");
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            var properties = (org.apache.camel.component.properties.PropertiesComponent) context.getPropertiesComponent();
            properties.setLocation("file:" + file + ",classpath:application.properties");
            context.build();
            properties.addPropertiesSource(new EnvironmentVariablesSource(Map.of(
                    "BRIDGE_IMDS_POLL_INTERVAL", " 300 ", "BRIDGE_IMDS_API_VERSION", "from-env")));
            System.setProperty("bridge.imds.api-version", "from-d");
            try {
                assertThat(properties.resolveProperty("bridge.imds.api-version")).contains("from-d");
                assertThat(properties.resolveProperty("bridge.imds.poll-interval")).contains("300");
                assertThat(properties.resolveProperty("bridge.imds.timeout")).contains("111");
                assertThat(properties.resolveProperty("bridge.imds.first-call-timeout")).contains("120000");
                ConfigurationSources sources = new ConfigurationSources(properties, Map.of());
                assertThat(sources.origin("bridge.imds.api-version")).isEqualTo("-Dbridge.imds.api-version");
                assertThat(sources.origin("bridge.imds.poll-interval")).isEqualTo("environment variable BRIDGE_IMDS_POLL_INTERVAL");
                assertThat(sources.origin("bridge.imds.timeout")).isEqualTo("file " + file);
                assertThat(sources.origin("bridge.imds.first-call-timeout")).isEqualTo("the packaged default");
                properties.addOverrideProperty("bridge.imds.timeout", "222");
                assertThat(properties.resolveProperty("bridge.imds.timeout")).contains("222");
                assertThat(sources.origin("bridge.imds.timeout"))
                        .isEqualTo("a value set by the program that embeds the agent");
            } finally {
                System.clearProperty("bridge.imds.api-version");
            }
        }
    }

    @Test
    void unknownKeysInAFileAndKeysReadBeforeFilesAreRefused() throws Exception {
        Path typo = Files.writeString(dir.resolve("typo.properties"), "bridge.imds.poll-intervall=500\n");
        assertThatThrownBy(() -> check(typo, Map.of()))
                .hasMessage("Bad configuration: bridge.imds.poll-intervall: is not a known key; did you mean "
                        + "bridge.imds.poll-interval? (from file " + typo + ")");
        Path early = Files.writeString(dir.resolve("early.properties"), "bridge.log.format=json\n");
        assertThatThrownBy(() -> check(early, Map.of()))
                .hasMessageContaining("bridge.log.format: is read before any file: set it as -Dbridge.log.format or "
                        + "BRIDGE_LOG_FORMAT");
        Path fine = Files.writeString(dir.resolve("fine.properties"), "bridge.log.format=text\ncamel.main.name=x\n");
        check(fine, Map.of("PATH", "/bin", "BRIDGE_IMDS_URL", "http://x/"));
        assertThatThrownBy(() -> check(fine, Map.of("BRIDGE_WEBHOOK_URL", "http://x/")))
                .hasMessageContaining("BRIDGE_WEBHOOK_URL: is not a known key; did you mean BRIDGE_WEBHOOK_URLS?");
    }

    @Test
    void onWindowsVariablesAreMatchedWhateverTheirCase() throws Exception {
        io.github.scheduledeventsbridge.platform.Platform windows = io.github.scheduledeventsbridge.platform.Platform.of(
                io.github.scheduledeventsbridge.platform.OperatingSystem.WINDOWS, java.nio.file.FileSystems.getDefault(),
                Map.of("Bridge_Imds_Api_Version", "from-env", "bridge_webhook_url", "http://x/"));
        Path fine = Files.writeString(dir.resolve("fine.properties"), "camel.main.name=x\n");
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            var properties = (org.apache.camel.component.properties.PropertiesComponent) context.getPropertiesComponent();
            properties.setLocation("classpath:application.properties");
            context.build();
            properties.addPropertiesSource(new EnvironmentVariablesSource(windows.environment()));
            assertThat(properties.resolveProperty("bridge.imds.api-version")).contains("from-env");
        }
        assertThatThrownBy(() -> check(fine, windows.environment()))
                .hasMessageContaining("BRIDGE_WEBHOOK_URL: is not a known key; did you mean BRIDGE_WEBHOOK_URLS?");
    }

    private static void check(Path file, Map<String, String> environment) throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            var properties = (org.apache.camel.component.properties.PropertiesComponent) context.getPropertiesComponent();
            properties.setLocation("file:" + file + ",classpath:application.properties");
            context.build();
            new ConfigurationSources(properties, environment).refuseUnknownKeys();
        }
    }
}
