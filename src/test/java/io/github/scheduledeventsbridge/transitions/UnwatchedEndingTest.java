package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.testing.Docs;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Scheduled -> absent when the agent was not watching: decided on evidence, marked startObserved=false. */
class UnwatchedEndingTest {

    private static final String ID = "AAAAAAAA-0000-0000-0000-00000000000A";
    private static final Instant LAST_SEEN = Instant.parse("2026-11-20T10:00:00Z");
    private static final Instant NOW = LAST_SEEN.plus(Duration.ofMinutes(10));
    private static final String PASSED = "Fri, 20 Nov 2026 10:05:00 GMT";
    private static final String FUTURE = "Fri, 20 Nov 2026 11:00:00 GMT";

    private final TransitionDetector detector = new TransitionDetector();

    private static ImdsDocument doc(long incarnation, String... events) {
        return new ImdsDocumentParser().parse(Docs.document(incarnation, events));
    }

    private static Continuity notWatching(Instant bootTime) {
        return new Continuity(false, LAST_SEEN, bootTime, NOW);
    }

    private DetectedTransition vanished(String type, String notBefore, Continuity continuity) {
        List<DetectedTransition> t = detector.detect(doc(2, Docs.scheduled(ID, type, notBefore, "vm")), doc(3), continuity);
        assertThat(t).hasSize(1);
        return t.get(0);
    }

    @ParameterizedTest(name = "{0}, booted {1} min after the last observation -> {2}")
    @CsvSource({
            "Reboot,   5, Completed",
            "Reboot,  -5, Cancelled",
            "Redeploy, 5, Completed",
            "Redeploy,-5, Cancelled",
            "reboot,   5, Completed"})
    @DisplayName("Reboot and Redeploy are judged by the boot time, whatever NotBefore says")
    void rebootsByBootTime(String type, int bootMinutes, TransitionType expected) {
        DetectedTransition t = vanished(type, FUTURE, notWatching(LAST_SEEN.plus(Duration.ofMinutes(bootMinutes))));

        assertThat(t.type()).isEqualTo(expected);
        assertThat(t.startObserved()).isFalse();
        assertThat(t.previousStatus()).isEqualTo("Scheduled");
        assertThat(t.currentStatus()).isNull();
    }

    @ParameterizedTest(name = "{0} with NotBefore {1} -> {2}")
    @CsvSource({
            "Freeze,    'Fri, 20 Nov 2026 10:05:00 GMT', Completed",
            "Freeze,    'Fri, 20 Nov 2026 11:00:00 GMT', Cancelled",
            "Preempt,   'Fri, 20 Nov 2026 10:05:00 GMT', Completed",
            "Terminate, 'Fri, 20 Nov 2026 11:00:00 GMT', Cancelled",
            "Freeze,    '',                              Cancelled"})
    @DisplayName("other types are Completed once NotBefore had passed, else Cancelled")
    void othersByNotBefore(String type, String notBefore, TransitionType expected) {
        DetectedTransition t = vanished(type, notBefore, notWatching(LAST_SEEN.minus(Duration.ofDays(1))));

        assertThat(t.type()).isEqualTo(expected);
        assertThat(t.startObserved()).isFalse();
    }

    @Test
    @DisplayName("a Reboot with no boot evidence (unreadable boot time, unknown last observation) falls back to NotBefore")
    void rebootWithoutEvidence() {
        assertThat(vanished("Reboot", PASSED, notWatching(null)).type()).isEqualTo(TransitionType.Completed);
        assertThat(vanished("Reboot", FUTURE, notWatching(null)).type()).isEqualTo(TransitionType.Cancelled);
        Continuity unknownLastSeen = new Continuity(false, null, NOW.minusSeconds(1), NOW);
        assertThat(vanished("Reboot", FUTURE, unknownLastSeen).type()).isEqualTo(TransitionType.Cancelled);
    }

    @Test
    @DisplayName("while watching, Scheduled -> absent stays Cancelled and carries no startObserved")
    void watchingStaysCancelled() {
        DetectedTransition t = vanished("Reboot", PASSED, Continuity.watching(NOW));

        assertThat(t.type()).isEqualTo(TransitionType.Cancelled);
        assertThat(t.startObserved()).isNull();
    }

    @Test
    @DisplayName("Started -> absent is Completed with no startObserved, watched or not (the start was seen)")
    void startedStaysCompleted() {
        List<DetectedTransition> t = detector.detect(doc(3, Docs.started(ID, "Reboot", "vm")), doc(4),
                notWatching(LAST_SEEN.minusSeconds(60)));

        assertThat(t).extracting(DetectedTransition::type, DetectedTransition::startObserved)
                .containsExactly(org.assertj.core.api.Assertions.tuple(TransitionType.Completed, null));
    }

    @Test
    @DisplayName("not watching changes nothing for events still listed")
    void presentEventsUnaffected() {
        List<DetectedTransition> t = detector.detect(doc(2, Docs.scheduled(ID, "Reboot", FUTURE, "vm")),
                doc(3, Docs.started(ID, "Reboot", "vm")), notWatching(NOW));

        assertThat(t).extracting(DetectedTransition::type).containsExactly(TransitionType.Started);
        assertThat(t.get(0).startObserved()).isNull();
    }
}
