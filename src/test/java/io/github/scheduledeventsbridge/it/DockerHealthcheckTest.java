package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile's HEALTHCHECK command, run as Docker would run it (bash, the container's environment) against
 * a real agent: healthy while the agent lives even though it is not ready (IMDS down), on the port
 * BRIDGE_MANAGEMENT_PORT names; unhealthy when nothing answers there.
 */
class DockerHealthcheckTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    @SuppressWarnings("unchecked")
    private static List<String> healthcheck() throws Exception {
        String dockerfile = Files.readString(Path.of("Dockerfile")).replace("\\\n", " ");
        Matcher cmd = Pattern.compile("(?m)^HEALTHCHECK .*?CMD (\\[.*\\])\\s*$").matcher(dockerfile);
        assertThat(cmd.find()).as("HEALTHCHECK … CMD [exec form] in the Dockerfile").isTrue();
        return new ObjectMapper().readValue(cmd.group(1), List.class);
    }

    private static int run(List<String> command, String port) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("BRIDGE_MANAGEMENT_PORT", port);
        Process process = builder.start();
        process.getInputStream().readAllBytes();
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return process.exitValue();
    }

    @Test
    void healthyWhileAliveEvenWhenNotReadyOnTheConfiguredPort() throws Exception {
        List<String> command = healthcheck();
        ScriptedImds imds = fixture.imds();
        imds.failWith(500, null);
        try (InProcessAgent agent = fixture.start()) {
            int port = agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port();
            assertThat(HealthCheckHelper.invokeReadiness(agent.context()))
                    .as("not ready: IMDS never answered").anyMatch(r -> r.getState().name().equals("DOWN"));
            assertThat(run(command, Integer.toString(port))).as("healthy (liveness) on port " + port).isZero();
        }
        int closed = FreePorts.unused();
        assertThat(run(command, Integer.toString(closed))).as("nothing listening: unhealthy").isNotZero();
    }
}
