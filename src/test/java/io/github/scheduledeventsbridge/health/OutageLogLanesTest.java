package io.github.scheduledeventsbridge.health;

import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A sink with several lanes has one outage: from its first failing lane until every failing lane delivers again. */
class OutageLogLanesTest {

    @TempDir
    Path root;

    private final Sink sink = new Sink("webhook-1", "webhook hooks.example.com", "webhook http://hooks.example.com/x", "tpl", Sink.Target.NONE, e -> true, false, 4);

    private SpoolEntry delivery(int lane) {
        return new SpoolEntry(sink.id(), sink.queue(lane), root.resolve("x.json"));
    }

    @Test
    void oneLaneRetryingARefusedMessageWhileTheOthersDeliverIsOneOutageNotOnePerRetry() throws IOException {
        Clock clock = Clock.systemUTC();
        OutageLog outages = new OutageLog(new OutageLog.Settings(Duration.ofMinutes(5)), new SinkRegistry(List.of(sink)),
                new Spool(root), new PollBackoff(clock, Duration.ofSeconds(1), Duration.ofMinutes(1)), clock);
        try (LogCapture log = LogCapture.install()) {
            RuntimeException refused = new RuntimeException("HTTP 404");
            outages.attemptFailed(sink.id(), sink.queue(1), refused);
            outages.delivered(sink.id(), delivery(2));
            outages.attemptFailed(sink.id(), sink.queue(1), refused);
            outages.delivered(sink.id(), delivery(0));
            outages.attemptFailed(sink.id(), sink.queue(3), refused);
            outages.delivered(sink.id(), delivery(1));

            assertThat(log.lines()).filteredOn(l -> l.contains("is failing")).hasSize(1);
            assertThat(log.lines()).filteredOn(l -> l.contains("recovered")).as("lane 3 still fails").isEmpty();

            outages.delivered(sink.id(), delivery(3));

            assertThat(log.lines()).filteredOn(l -> l.contains("recovered")).singleElement().asString()
                    .contains("Sink webhook hooks.example.com recovered", "(3 failed attempt(s))");
        }
    }
}
