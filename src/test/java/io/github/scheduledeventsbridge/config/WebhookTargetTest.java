package io.github.scheduledeventsbridge.config;

import io.github.scheduledeventsbridge.BridgeSettings;
import io.github.scheduledeventsbridge.delivery.WebhookTarget;
import io.github.scheduledeventsbridge.testing.Settings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WebhookTargetTest {

    @TempDir
    Path tmp;

    private BridgeSettings read(String... keyValues) {
        return Settings.read(tmp.resolve("state"), keyValues);
    }

    private WebhookTarget target(String url) {
        return read("bridge.webhook.urls", url).webhook().targets().get(0);
    }

    @Test
    @DisplayName("requests go to the URL as configured, query and its encoding untouched, without user:password@")
    void requestUrl() {
        assertThat(target("https://fn.azurewebsites.net/api/fn?code=abc%2Bdef%3D%3D").requestUrl())
                .isEqualTo("https://fn.azurewebsites.net/api/fn?code=abc%2Bdef%3D%3D");
        assertThat(target("https://alice:pa%3Ass@hooks.example.com:8443/p%20q?a=b&c=%2F").requestUrl())
                .isEqualTo("https://hooks.example.com:8443/p%20q?a=b&c=%2F");
        assertThat(target("http://[::1]:9000/hook").requestUrl()).isEqualTo("http://[::1]:9000/hook");
    }

    @Test
    @DisplayName("user:password@ becomes HTTP Basic, percent-decoded; no userinfo, no header")
    void basicAuthorization() {
        assertThat(target("https://alice:pa%3Ass%40w@hooks.example.com/p").basicAuthorization()).contains("Basic "
                + Base64.getEncoder().encodeToString("alice:pa:ss@w".getBytes(StandardCharsets.UTF_8)));
        assertThat(target("https://hooks.example.com/p?token=x").basicAuthorization()).isEmpty();
        assertThat(target("https://alice:secret@hooks.example.com/p").toString()).doesNotContain("alice", "secret");
    }

    @Test
    @DisplayName("the spool identity ignores the query and credentials (token rotation), not host, port, path or format")
    void identity() {
        String identity = target("https://fn.example.com/api/fn?code=old").identity();
        assertThat(target("https://fn.example.com/api/fn?code=new").identity()).isEqualTo(identity);
        assertThat(target("https://u:p@FN.example.com:443/api/fn").identity()).isEqualTo(identity);
        assertThat(target("https://fn.example.com/api/other?code=old").identity()).isNotEqualTo(identity);
        assertThat(target("https://fn.example.com:8443/api/fn?code=old").identity()).isNotEqualTo(identity);
        assertThat(target("slack:https://fn.example.com/api/fn?code=old").identity()).isNotEqualTo(identity);
        assertThat(target("https://fn.example.com/api/fn?code=old").identity(true)).contains("code=old");
    }

    @Test
    @DisplayName("the same target twice with other credentials is refused, naming the key but no credential")
    void sameTargetTwice() {
        assertThatThrownBy(() -> read("bridge.webhook.urls", "https://a:one@h.example.com/p,https://b:two@h.example.com/p"))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.webhook.urls")
                .hasMessageNotContaining("one").hasMessageNotContaining("two@");
        assertThat(read("bridge.webhook.urls", "https://h.example.com/p?to=a,https://h.example.com/p?to=b")
                .webhook().targets()).hasSize(2);
    }

    @Test
    @DisplayName("bridge.delivery.dead-letter-after: one hour by default, a positive number of ms")
    void deadLetterAfter() {
        assertThat(read().delivery().deadLetterAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(read("bridge.delivery.dead-letter-after", "1500").delivery().deadLetterAfter()).isEqualTo(Duration.ofMillis(1500));
        for (String bad : List.of("0", "-1", "soon")) {
            assertThatThrownBy(() -> read("bridge.delivery.dead-letter-after", bad))
                    .isInstanceOf(BadConfigurationException.class).hasMessageContaining("bridge.delivery.dead-letter-after");
        }
    }
}
