package io.github.scheduledeventsbridge.delivery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class SpoolContentTest {

    private static final String EVENT = "{\"specversion\":\"1.0\",\"id\":\"i\",\"source\":\"s\",\"type\":\"t\",\"data\":{}}";

    private static java.util.Optional<String> problem(String content, boolean batched) {
        return SpoolContent.problem(content.getBytes(StandardCharsets.UTF_8), batched);
    }

    @Test
    @DisplayName("a CloudEvent, or for a batched sink a non-empty array of them, is a message")
    void messages() {
        assertThat(problem(EVENT, false)).isEmpty();
        assertThat(problem("[" + EVENT + "," + EVENT + "]", true)).isEmpty();
    }

    @Test
    @DisplayName("anything else is not: not JSON, empty, not a CloudEvent, not the array Event Hubs expects")
    void notMessages() {
        assertThat(SpoolContent.problem(new byte[] {(byte) 0xff, 0, 1}, false)).contains("not JSON");
        assertThat(problem("", false)).isPresent();
        assertThat(problem("{\"specversion\":\"1.0\"", false)).contains("not JSON");
        assertThat(problem("{\"hello\":1}", false)).contains("not a CloudEvent (no specversion)");
        assertThat(problem("[" + EVENT + "]", false)).isPresent();
        assertThat(problem(EVENT, true)).contains("not a JSON array of CloudEvents");
        assertThat(problem("[]", true)).isPresent();
        assertThat(problem("[" + EVENT + ",{\"specversion\":\"1.0\"}]", true)).contains("not a CloudEvent (no id)");
    }
}
