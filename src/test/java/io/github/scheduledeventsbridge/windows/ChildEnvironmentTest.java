package io.github.scheduledeventsbridge.windows;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A command the agent starts sees none of the agent's settings, whatever case their names are written in. */
class ChildEnvironmentTest {

    @Test
    void aRealChildProcessSeesNoBridgeVariableInAnyCaseButEverythingElse() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("/usr/bin/env").redirectErrorStream(true);
        builder.environment().put("BRIDGE_WEBHOOK_SECRET", "upper");
        builder.environment().put("bridge_webhook_secret", "lower");
        builder.environment().put("Bridge_Approval_Secret", "mixed");
        builder.environment().put("SEB_EVENT_ID", "AAAA");
        builder.environment().put("MY_BRIDGE_NAME", "not a setting of the agent");

        ChildEnvironment.removeAgentSettings(builder.environment());

        Process env = builder.start();
        String output = new String(env.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(env.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(output.lines()).noneMatch(line -> line.toUpperCase(java.util.Locale.ROOT).startsWith("BRIDGE_"))
                .contains("SEB_EVENT_ID=AAAA", "MY_BRIDGE_NAME=not a setting of the agent")
                .anyMatch(line -> line.startsWith("PATH="));
        assertThat(output).doesNotContain("upper", "lower", "mixed");
    }
}
