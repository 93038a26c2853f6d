package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.action.DrainSignal;
import io.github.scheduledeventsbridge.approval.ApprovalServer;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What starts in which order, as architecture.md states it: the approval and drain ports listen before any route
 * runs, every meter is present before any route starts, the management server starts only once the poll has started,
 * and a stop closes the ports after the routes.
 */
class StartOrderTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    @Test
    void portsBeforeTheRoutesTheManagementServerAfterThePollAndTheRoutesStopFirst() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        EventNotifierSupport recorder = new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent event) {
                if (event instanceof CamelEvent.RouteStartedEvent started) {
                    seen.add(started.getRoute().getRouteId() + ": " + listening(started.getRoute().getCamelContext())
                            + meters(started.getRoute().getCamelContext()));
                } else if (event instanceof CamelEvent.CamelContextRoutesStoppedEvent stopped) {
                    seen.add("routes stopped: " + listening(stopped.getContext()));
                }
            }
        };
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(1));
        InProcessAgent agent = fixture.builder()
                .with("bridge.approval.secret", "approval-secret-for-tests-0123456789abcdef")
                .with("bridge.approval.port", Integer.toString(FreePorts.unused()))
                .with("bridge.drain.port", "0").with("bridge.drain.host", "127.0.0.1")
                .bind("startOrderRecorder", recorder)
                .start();
        List<Integer> ports;
        try (agent) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.polls() >= 1
                    && agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port() > 0);
            ports = List.of(agent.bean(ApprovalServer.BEAN_NAME, ApprovalServer.class).port(),
                    agent.bean("drainSignal", DrainSignal.class).port(),
                    agent.bean(ManagementServer.BEAN_NAME, ManagementServer.class).port());
        }
        assertThat(ports).as("every port is closed once the agent stopped").noneMatch(StartOrderTest::accepts);
        assertThat(seen).filteredOn(line -> !line.startsWith("routes stopped"))
                .isNotEmpty()
                .allMatch(line -> line.contains("approval drain"), "the approval and drain ports listen before any route")
                .allMatch(line -> line.endsWith(" with meters"), "every meter is present before any route starts")
                .anyMatch(line -> line.startsWith("imds-poll: "))
                .allMatch(line -> !line.contains("management"), "the management server comes after the poll started");
        assertThat(seen).contains("routes stopped: approval drain management");
    }

    /** The agent's meters (a few of each concern's) exist, at 0, from before the first route starts. */
    private static String meters(CamelContext context) {
        MeterRegistry registry = context.getRegistry().findSingleByType(MeterRegistry.class);
        boolean present = registry.find("bridge.build.info").gauge() != null
                && registry.find("bridge.transitions").tag("transition", "Scheduled").counter() != null
                && registry.find("bridge.imds.polls").tag("outcome", "timeout").counter() != null
                && registry.find("bridge.drain.draining").gauge() != null;
        return present ? " with meters" : " without meters";
    }

    /** Which of the agent's ports accept a connection right now. */
    private static String listening(CamelContext context) {
        var beans = context.getRegistry();
        StringBuilder open = new StringBuilder();
        if (accepts(beans.lookupByNameAndType(ApprovalServer.BEAN_NAME, ApprovalServer.class).port())) {
            open.append(" approval");
        }
        DrainSignal drain = beans.lookupByNameAndType("drainSignal", DrainSignal.class);
        try {
            if (accepts(drain.port())) {
                open.append(" drain");
            }
        } catch (NullPointerException notListening) {
            // The drain port is not open yet.
        }
        if (accepts(beans.lookupByNameAndType(ManagementServer.BEAN_NAME, ManagementServer.class).port())) {
            open.append(" management");
        }
        return open.toString().strip();
    }

    private static boolean accepts(int port) {
        if (port <= 0) {
            return false;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
