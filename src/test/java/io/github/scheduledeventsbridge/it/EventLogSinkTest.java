package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink;
import io.github.scheduledeventsbridge.eventlog.EntryType;
import io.github.scheduledeventsbridge.eventlog.EventLogEntry;
import io.github.scheduledeventsbridge.eventlog.EventLogWriter;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Event Log sink as a lane like the others, behind a recording writer (the Windows Event Log itself cannot be
 * reached here): one entry per transition in order, failed writes retried, and what was not written when the agent
 * stopped written after the next start.
 */
class EventLogSinkTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    /** Takes every entry, or refuses the first {@code failures} writes as a full or unavailable Event Log would. */
    static final class RecordingWriter implements EventLogWriter {
        final List<EventLogEntry> entries = new CopyOnWriteArrayList<>();
        final AtomicInteger refused = new AtomicInteger();
        private final int failures;

        RecordingWriter(int failures) {
            this.failures = failures;
        }

        @Override
        public void write(EventLogEntry entry) {
            if (refused.get() < failures) {
                refused.incrementAndGet();
                throw new IllegalStateException("The event log file is full");
            }
            entries.add(entry);
        }

        List<Integer> ids() {
            return entries.stream().map(EventLogEntry::eventId).toList();
        }
    }

    private InProcessAgent.Builder eventLogAgent(RecordingWriter writer) {
        return fixture.builder().with("bridge.eventlog.enabled", "true")
                .with("bridge.delivery.initial-backoff", "50").with("bridge.delivery.max-backoff", "200")
                .bind(EventLogSink.WRITER_BEAN, writer);
    }

    @Test
    void eachTransitionOfAnEventIsOneEntryInOrderWithItsFixedIdAndLevel() throws Exception {
        RecordingWriter writer = new RecordingWriter(0);
        fixture.imds().serve(Docs.document(1, scheduled(A)));
        try (InProcessAgent agent = eventLogAgent(writer).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> writer.entries.size() == 1);
            fixture.imds().serve(Docs.document(2, Docs.started(A, "Reboot", "vm-a")));
            await().atMost(Duration.ofSeconds(20)).until(() -> writer.entries.size() == 2);
            fixture.imds().serve(Docs.document(3));
            await().atMost(Duration.ofSeconds(20)).until(() -> writer.entries.size() == 3);

            assertThat(writer.ids()).containsExactly(1001, 1002, 1004);
            assertThat(writer.entries).extracting(EventLogEntry::type)
                    .containsExactly(EntryType.WARNING, EntryType.WARNING, EntryType.INFORMATION);
            assertThat(writer.entries.get(0).message()).startsWith("Reboot of vm-a scheduled")
                    .contains("\r\n\r\n{\"specversion\":\"1.0\"", A);
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting().isEmpty());
        }
    }

    @Test
    void refusedWritesAreRetriedAndEveryTransitionStillArrivesOnceInOrder() throws Exception {
        RecordingWriter writer = new RecordingWriter(3);
        fixture.imds().serve(Docs.document(1, scheduled(A), scheduled(B)));
        try (InProcessAgent agent = eventLogAgent(writer).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> writer.entries.size() == 2);
            assertThat(writer.refused.get()).isEqualTo(3);
            assertThat(writer.entries).extracting(e -> e.message().contains(A) ? A : B).containsExactly(A, B);
        }
    }

    @Test
    void whatTheEventLogDidNotTakeBeforeAStopIsWrittenAfterTheNextStart() throws Exception {
        RecordingWriter broken = new RecordingWriter(Integer.MAX_VALUE);
        fixture.imds().serve(Docs.document(1, scheduled(A)));
        try (InProcessAgent agent = eventLogAgent(broken).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> broken.refused.get() >= 2);
        }
        assertThat(waiting()).as("kept in the spool").hasSize(1);

        RecordingWriter working = new RecordingWriter(0);
        try (InProcessAgent agent = eventLogAgent(working).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> working.entries.size() == 1);
            assertThat(working.ids()).containsExactly(1001);
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting().isEmpty());
        }
    }

    @Test
    void withoutAWindowsEventLogTurningItOnStopsStartUpNamingTheKey() {
        assertThatThrownBy(() -> fixture.builder().with("bridge.eventlog.enabled", "true")
                .start().close())
                .hasStackTraceContaining("Bad configuration: bridge.eventlog.enabled: true needs Windows");
    }

    private List<Path> waiting() throws Exception {
        Path dir = fixture.state().resolve("spool").resolve(EventLogSink.ID);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).toList();
        }
    }
}
