package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The packaged agent refuses to start with a weak approval secret or an approval port it cannot bind: exit 2, one line. */
class ApprovalStartupIT {

    @TempDir
    Path work;

    @ParameterizedTest
    @ValueSource(strings = {"change-me", "x", "secret", "changeme", "<your-approval-secret>",
            "change-me-to-at-least-32-random-characters", "short-but-not-a-placeholder",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void aWeakOrPlaceholderApprovalSecretStopsStartUp(String secret) throws Exception {
        try (AgentProcess agent = AgentProcess.start("weak-secret", AgentProcess.env("BRIDGE_APPROVAL_SECRET", secret),
                Map.of("bridge.state.dir", work.resolve("s").toString(), "bridge.simulator.enabled", "true",
                        "bridge.approval.port", "0"), work)) {
            assertThat(agent.waitForExit(60)).isEqualTo(2);
            String output = agent.output();
            assertThat(output.lines().filter(l -> l.contains("Bad configuration"))).singleElement().asString()
                    .startsWith("Bad configuration: bridge.approval.secret: ");
            assertThat(output).doesNotContain("\tat ").doesNotContain("Exception");
            if (secret.length() > 6) {
                assertThat(output).as("the secret itself is never printed").doesNotContain(secret);
            }
        }
    }

    @Test
    void anApprovalPortAlreadyInUseStopsStartUp() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            try (AgentProcess agent = AgentProcess.start("port-taken",
                    AgentProcess.env("BRIDGE_APPROVAL_SECRET", "a-strong-approval-secret-0123456789abcdef"),
                    Map.of("bridge.state.dir", work.resolve("s").toString(), "bridge.simulator.enabled", "true",
                            "bridge.approval.port", Integer.toString(taken.getLocalPort())), work)) {
                assertThat(agent.waitForExit(60)).isEqualTo(2);
                String output = agent.output();
                assertThat(output.lines().filter(l -> l.contains("Bad configuration"))).singleElement().asString()
                        .startsWith("Bad configuration: bridge.approval.port: ").contains(Integer.toString(taken.getLocalPort()));
                assertThat(output).doesNotContain("\tat ").doesNotContain("Remote approval API on");
            }
        }
    }
}
