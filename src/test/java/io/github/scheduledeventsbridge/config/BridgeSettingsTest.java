package io.github.scheduledeventsbridge.config;

import io.github.scheduledeventsbridge.logging.Redaction;
import io.github.scheduledeventsbridge.BridgeSettings;
import io.github.scheduledeventsbridge.testing.Settings;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BridgeSettingsTest {

    @TempDir
    Path tmp;

    private BridgeSettings read(String... keyValues) {
        return Settings.read(tmp.resolve("state"), keyValues);
    }

    @Test
    @DisplayName("defaults with nothing configured but the state directory")
    void defaults() {
        BridgeSettings s = BridgeSettings.read(Map.of("bridge.state.dir", tmp.resolve("state").toString())::get);

        assertThat(s.imds().url()).isEqualTo(URI.create("http://169.254.169.254/metadata/scheduledevents"));
        assertThat(s.imds().apiVersion()).isEqualTo("2020-07-01");
        assertThat(s.imds().pollInterval()).isEqualTo(Duration.ofMillis(1000));
        assertThat(s.imds().timeout()).isPositive();
        assertThat(s.imds().firstCallTimeout()).isPositive();
        assertThat(s.imds().maxBackoff()).isGreaterThanOrEqualTo(s.imds().pollInterval());
        assertThat(s.imds().maxDocumentSize()).isEqualTo(1_048_576);
        assertThat(s.imds().instanceUrl().getHost()).isEqualTo("169.254.169.254");
        assertThat(s.stateDir()).isEqualTo(tmp.resolve("state").toAbsolutePath().normalize());
        assertThat(s.stateDir()).as("created").isDirectory();
        assertThat(s.filterResources()).isEqualTo("all");
        assertThat(s.webhook().urls()).isEmpty();
        assertThat(s.webhook().secret()).isEmpty();
        assertThat(s.delivery().initialBackoff()).isPositive();
        assertThat(s.delivery().maxBackoff()).isGreaterThanOrEqualTo(s.delivery().initialBackoff());
        assertThat(s.simulator().enabled()).isFalse();
        assertThat(s.simulator().port()).isBetween(0, 65535);
        assertThat(s.simulator().speed()).isPositive();
        assertThat(s.approval().listener()).isEqualTo(
                new io.github.scheduledeventsbridge.approval.ApprovalSettings.Listener("0.0.0.0", 8089, 64, Duration.ofSeconds(10)));
        assertThat(read("bridge.approval.secret", "0123456789abcdef0123456789abcdef").approval().secret()).hasSize(32);
    }

    @Test
    @DisplayName("values are case-normalised where the contract allows")
    void caseNormalisedValues() {
        BridgeSettings s = read(
                "bridge.filter.resources", "OWN",
                "bridge.simulator.enabled", "TRUE");

        assertThat(s.filterResources()).isEqualTo("own");
        assertThat(s.simulator().enabled()).isTrue();
    }

    @Test
    @DisplayName("white space around a value is refused: routes read the raw value, so the check does too")
    void whiteSpaceAroundAValueIsRefused() {
        assertThatThrownBy(() -> read("bridge.imds.poll-interval", " 500 "))
                .hasMessageContaining("bridge.imds.poll-interval: has white space around its value");
        assertThatThrownBy(() -> read("bridge.webhook.secret", "my-very-secret-value "))
                .hasMessageNotContaining("my-very-secret-value");
        assertThatThrownBy(() -> read("bridge.imds.url", " https://imds.example/x"))
                .hasMessageContaining("bridge.imds.url");
    }

    @Test
    @DisplayName("an initial back-off above the maximum is refused")
    void initialBackoffAboveMaximum() {
        assertThatThrownBy(() -> read("bridge.delivery.initial-backoff", "9000", "bridge.delivery.max-backoff", "5000"))
                .hasMessageContaining("bridge.delivery.initial-backoff: 9000 is above bridge.delivery.max-backoff (5000)");
        assertThat(read("bridge.delivery.initial-backoff", "5000", "bridge.delivery.max-backoff", "5000")
                .delivery().initialBackoff()).isEqualTo(Duration.ofMillis(5000));
    }

    @Test
    @DisplayName("a poll interval of exactly 200 ms is accepted")
    void minimumPollInterval() {
        assertThat(read("bridge.imds.poll-interval", "200").imds().pollInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(io.github.scheduledeventsbridge.imds.ImdsSettings.MIN_POLL_INTERVAL_MS).isEqualTo(200);
    }

    @Test
    @DisplayName("a bad filter is refused before the state directory is made")
    void badFilterLeavesNoStateDirectory() {
        assertThatThrownBy(() -> read("bridge.filter.resources", "some"))
                .hasMessageContaining("bridge.filter.resources");
        assertThat(tmp.resolve("state")).doesNotExist();
    }

    @ParameterizedTest(name = "[{index}] {0} = \"{1}\"")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
            "bridge.imds.poll-interval      | 199",
            "bridge.imds.poll-interval      | abc",
            "bridge.imds.poll-interval      | ''",
            "bridge.imds.poll-interval      | 0",
            "bridge.imds.timeout            | -1",
            "bridge.imds.timeout            | 0",
            "bridge.imds.max-backoff        | 1.5",
            "bridge.imds.max-document-size  | 0",
            "bridge.imds.max-document-size  | 1MB",
            "bridge.delivery.initial-backoff| -500",
            "bridge.filter.resources        | some",
            "bridge.filter.resources        | ''",
            "bridge.imds.url                | ftp://x",
            "bridge.imds.url                | not a url",
            "bridge.imds.url                | http:///nohost",
            "bridge.imds.url                | ''",
            "bridge.imds.instance-url       | file:///etc/passwd",
            "bridge.imds.api-version        | ''",
            "bridge.webhook.urls            | 'https://ok.example/hook, ftp://bad.example/x'",
            "bridge.webhook.urls            | 'https://ok.example/hook,not a url'",
            "bridge.simulator.port          | 70000",
            "bridge.simulator.port          | -1",
            "bridge.simulator.port          | http",
            "bridge.simulator.speed         | 0",
            "bridge.simulator.speed         | -2",
            "bridge.simulator.speed         | NaN",
            "bridge.simulator.speed         | Infinity",
            "bridge.simulator.speed         | fast",
            "bridge.simulator.enabled       | yes",
            "bridge.simulator.enabled       | 1",
            "bridge.approval.secret         | change-me",
            "bridge.approval.secret         | 0123456789abcdef0123456789abcde",
            "bridge.approval.secret         | '<approval secret>'",
            "bridge.approval.host           | no-such-host.invalid",
            "bridge.approval.max-connections| 0",
            "bridge.approval.max-connections| 5000",
            "bridge.approval.request-timeout| 0",
            "bridge.drain.max-connections   | 0",
            "bridge.drain.max-connections   | 5000",
            "bridge.drain.request-timeout   | 0",
            "bridge.management.max-connections | 0",
            "bridge.management.max-connections | 5000",
    })
    @DisplayName("each bad value stops start-up with a message naming the key")
    void badValues(String key, String value) {
        assertThatThrownBy(() -> read(key, value))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining(key);
    }

    @Test
    @DisplayName("a state directory that is a file is refused, naming the key")
    void stateDirIsAFile() throws IOException {
        Path file = Files.writeString(tmp.resolve("plain-file"), "x");

        assertThatThrownBy(() -> read("bridge.state.dir", file.toString()))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("bridge.state.dir");
    }

    @Test
    @DisplayName("a bad webhook URL is reported without its secret path")
    void badWebhookMessageRedacted() {
        assertThatThrownBy(() -> read("bridge.webhook.urls",
                "https://hooks.slack.com/services/T000/B000/goodsecret,ftp://files.example/badsecret?token=t0k"))
                .isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("bridge.webhook.urls")
                .hasMessageNotContaining("badsecret")
                .hasMessageNotContaining("t0k")
                .hasMessageNotContaining("goodsecret");
    }

    @Test
    @DisplayName("webhook URL items are trimmed, empty items skipped, duplicates removed, order kept")
    void webhookUrls() {
        BridgeSettings s = read("bridge.webhook.urls",
                "https://b.example/hook , https://a.example/x,,https://b.example/hook,  ,http://c.example:8080/y");

        assertThat(s.webhook().urls()).containsExactly(
                URI.create("https://b.example/hook"),
                URI.create("https://a.example/x"),
                URI.create("http://c.example:8080/y"));
    }

    @Test
    @DisplayName("redactUrlsIn reduces every URL in a text to its host and leaves the rest")
    void redactUrlsInText() {
        assertThat(Redaction.redactUrlsIn("refused by https://fn.example.com/api?code=SECRET, see "
                + "http://user:pw@h.example:8080/x;y and the docs"))
                .isEqualTo("refused by https://fn.example.com/…, see http://h.example:8080/…;y and the docs");
    }

    @Test
    @DisplayName("redact keeps scheme and host, hides path, query and credentials")
    void redact() {
        String slack = Redaction.redact("https://hooks.slack.com/services/T/B/secret");
        assertThat(slack).startsWith("https://hooks.slack.com")
                .doesNotContain("secret").doesNotContain("services").doesNotContain("/T/");

        String withPort = Redaction.redact("https://example.com:8443/hook?token=abc123");
        assertThat(withPort).startsWith("https://example.com:8443").doesNotContain("abc123").doesNotContain("hook");

        assertThat(Redaction.redact("https://user:pa55word@example.com/x")).doesNotContain("pa55word")
                .doesNotContain("user");
        assertThat(Redaction.redact("https://example.com/has space/secret")).doesNotContain("secret");
    }
}
