package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.BridgeSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class WebhookSinkTest {

    @TempDir
    Path tmp;

    private List<Sink> sinks(String urls, Map<String, String> legacy) {
        BridgeSettings settings = BridgeSettings.read(Map.of("bridge.state.dir", tmp.toString(),
                "bridge.webhook.urls", urls)::get);
        return WebhookSink.create(settings.webhook().targets(), e -> true, legacy);
    }

    private String id(String url) {
        return sinks(url, new HashMap<>()).get(0).id();
    }

    @Test
    @DisplayName("a webhook's spool id survives a token rotation and new credentials, not a new path")
    void stableAcrossRotation() {
        String id = id("https://fn.example.com/api/fn?code=old");
        assertThat(id).matches("webhook-[0-9a-f]{12}");
        assertThat(id("https://fn.example.com/api/fn?code=new")).isEqualTo(id);
        assertThat(id("https://user:pw@fn.example.com/api/fn?code=new")).isEqualTo(id);
        assertThat(id("https://fn.example.com/api/other?code=old")).isNotEqualTo(id);
    }

    @Test
    @DisplayName("targets differing only in their query get distinct spools; earlier versions' names are remembered")
    void ambiguousAndLegacy() {
        Map<String, String> legacy = new HashMap<>();
        List<Sink> sinks = sinks("https://h.example.com/p?to=a,https://h.example.com/p?to=b", legacy);
        assertThat(sinks).extracting(Sink::id).doesNotHaveDuplicates().hasSize(2);
        assertThat(legacy).hasSize(2).containsValues(sinks.get(0).id(), sinks.get(1).id());
        assertThat(legacy).containsKey("webhook-" + WebhookSink.shortHash("https://h.example.com/p?to=a"));
    }

    @Test
    @DisplayName("the sink calls the webhook attempt; its URL is only in its typed target, never printed")
    void attempt() {
        Sink sink = sinks("https://u:pw@fn.example.com/api/fn?code=SECRET", new HashMap<>()).get(0);
        assertThat(sink.attempt()).isEqualTo("direct:webhook-attempt");
        assertThat(sink.targetAs(WebhookTarget.class).url()).hasToString("https://u:pw@fn.example.com/api/fn?code=SECRET");
        assertThat(sink.toString() + sink.description()).doesNotContain("SECRET", "pw");
    }
}
