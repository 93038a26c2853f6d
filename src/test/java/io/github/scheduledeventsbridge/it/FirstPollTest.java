package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The first poll comes as soon as the poll route starts, never one poll interval later. Camel's timer skipped a
 * tick that fired before its consumer counted as started (a race, seen once in a loaded build: no poll for a whole
 * 60 s interval); the scheduler polls while its consumer is still starting. A race shows only now and then, so
 * the route is started many times, with an interval no test would wait for.
 */
class FirstPollTest {

    private static final int STARTS = 40;

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().with("bridge.imds.poll-interval", "3600000");

    @Test
    void everyStartOfThePollRoutePollsAtOnceWhateverTheInterval() throws Exception {
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(1));
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.polls() >= 1);
            for (int start = 1; start <= STARTS; start++) {
                agent.context().getRouteController().stopRoute("imds-poll");
                int before = imds.polls();
                agent.context().getRouteController().startRoute("imds-poll");
                int startNo = start;
                await("poll after start " + startNo).atMost(Duration.ofSeconds(10))
                        .until(() -> imds.polls() > before);
            }
            assertThat(imds.polls()).isEqualTo(STARTS + 1);
        }
    }
}
