package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged agent refuses to start with a weak approval secret: exit 2, one line, the secret nowhere in its output.
 * The other weak secrets and a taken approval port are refused in-process through the same start (StartUpRefusalsTest);
 * ConfigurationIT runs the jar against a taken port.
 */
class ApprovalStartupIT {

    @TempDir
    Path work;

    @Test
    void aPlaceholderApprovalSecretStopsStartUpWithOneLineWithoutIt() throws Exception {
        String secret = "change-me-to-at-least-32-random-characters";
        try (AgentProcess agent = AgentProcess.start("weak-secret", AgentProcess.env("BRIDGE_APPROVAL_SECRET", secret),
                Map.of("bridge.state.dir", work.resolve("s").toString(), "bridge.simulator.enabled", "true",
                        "bridge.approval.port", "0"), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            String output = agent.output();
            assertThat(output.lines().filter(l -> l.contains("Bad configuration"))).singleElement().asString()
                    .startsWith("Bad configuration: bridge.approval.secret: ");
            assertThat(output).doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(output).as("the secret itself is never printed").doesNotContain(secret);
        }
    }
}
