package io.github.scheduledeventsbridge.transitions;

import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.github.scheduledeventsbridge.transitions.Events.doc;
import static io.github.scheduledeventsbridge.transitions.Events.scheduled;
import static io.github.scheduledeventsbridge.transitions.Events.started;
import static io.github.scheduledeventsbridge.transitions.Events.withDescription;
import static io.github.scheduledeventsbridge.transitions.Events.withDuration;
import static io.github.scheduledeventsbridge.transitions.Events.withId;
import static io.github.scheduledeventsbridge.transitions.Events.withNotBefore;
import static io.github.scheduledeventsbridge.transitions.Events.withResources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TransitionDetectorTest {

    private static final String A = "AAAAAAAA-1111-4000-8000-000000000001";
    private static final String B = "BBBBBBBB-2222-4000-8000-000000000002";
    private static final String C = "CCCCCCCC-3333-4000-8000-000000000003";
    private static final String D = "DDDDDDDD-4444-4000-8000-000000000004";

    private final TransitionDetector detector = new TransitionDetector();

    @Nested
    @DisplayName("docs/interface.md, Transitions: one row each")
    class ContractRows {

        @Test
        @DisplayName("absent → Scheduled = Scheduled")
        void absentToScheduled() {
            ScheduledEvent a = scheduled(A);
            List<DetectedTransition> t = detector.detect(doc(1), doc(2, a));

            assertThat(t).containsExactly(new DetectedTransition(TransitionType.Scheduled, a, null, "Scheduled", 2));
        }

        @Test
        @DisplayName("absent → Started (hardware failure skips Scheduled) = Started")
        void absentToStarted() {
            ScheduledEvent a = started(A);
            List<DetectedTransition> t = detector.detect(doc(1), doc(2, a));

            assertThat(t).containsExactly(new DetectedTransition(TransitionType.Started, a, null, "Started", 2));
        }

        @Test
        @DisplayName("Scheduled → Started = Started")
        void scheduledToStarted() {
            ScheduledEvent now = started(A);
            List<DetectedTransition> t = detector.detect(doc(2, scheduled(A)), doc(3, now));

            assertThat(t).containsExactly(
                    new DetectedTransition(TransitionType.Started, now, "Scheduled", "Started", 3));
        }

        @Test
        @DisplayName("Scheduled → Scheduled with NotBefore changed = Rescheduled")
        void notBeforeChanged() {
            assertRescheduled(withNotBefore(scheduled(A), "Mon, 11 Apr 2022 22:41:58 GMT"));
        }

        @Test
        @DisplayName("Scheduled → Scheduled with Resources changed = Rescheduled")
        void resourcesChanged() {
            assertRescheduled(withResources(scheduled(A), "vm1", "vm2"));
        }

        @Test
        @DisplayName("Scheduled → Scheduled with DurationInSeconds changed = Rescheduled")
        void durationChanged() {
            assertRescheduled(withDuration(scheduled(A), 30));
        }

        @Test
        @DisplayName("Scheduled → Scheduled with Description changed = Rescheduled")
        void descriptionChanged() {
            assertRescheduled(withDescription(scheduled(A), "Host is being serviced."));
        }

        @Test
        @DisplayName("Started → absent = Completed")
        void startedToAbsent() {
            ScheduledEvent old = started(A);
            List<DetectedTransition> t = detector.detect(doc(3, old), doc(4));

            assertThat(t).containsExactly(new DetectedTransition(TransitionType.Completed, old, "Started", null, 4));
        }

        @Test
        @DisplayName("Scheduled → absent = Cancelled")
        void scheduledToAbsent() {
            ScheduledEvent old = scheduled(A);
            List<DetectedTransition> t = detector.detect(doc(2, old), doc(3));

            assertThat(t).containsExactly(
                    new DetectedTransition(TransitionType.Cancelled, old, "Scheduled", null, 3));
        }

        private void assertRescheduled(ScheduledEvent now) {
            List<DetectedTransition> t = detector.detect(doc(2, scheduled(A)), doc(3, now));

            assertThat(t).containsExactly(
                    new DetectedTransition(TransitionType.Rescheduled, now, "Scheduled", "Scheduled", 3));
        }
    }

    @Nested
    @DisplayName("what is not a transition")
    class NoTransition {

        @Test
        @DisplayName("NotBefore reformatted from RFC 1123 to ISO-8601, same instant: not a reschedule")
        void reformattedNotBefore() {
            ScheduledEvent iso = withNotBefore(scheduled(A), "2022-04-11T22:26:58Z");
            ScheduledEvent offset = withNotBefore(scheduled(A), "2022-04-12T00:26:58+02:00");

            assertThat(detector.detect(doc(2, scheduled(A)), doc(3, iso))).isEmpty();
            assertThat(detector.detect(doc(3, iso), doc(4, offset))).isEmpty();
            assertThat(detector.detect(doc(4, offset), doc(5, scheduled(A)))).isEmpty();
        }

        @Test
        @DisplayName("an unchanged document")
        void unchanged() {
            ImdsDocument doc = doc(2, scheduled(A), started(B));
            assertThat(detector.detect(doc, doc)).isEmpty();
            assertThat(detector.detect(doc, doc(3, scheduled(A), started(B))))
                    .as("same content under a new incarnation").isEmpty();
        }

        @Test
        @DisplayName("two empty documents")
        void empty() {
            assertThat(detector.detect(ImdsDocument.NONE, doc(1))).isEmpty();
            assertThat(detector.detect(doc(1), doc(2))).isEmpty();
        }

        @Test
        @DisplayName("Started → Started with changes")
        void startedStaysStarted() {
            ScheduledEvent old = started(A);
            ScheduledEvent changed = withDescription(withDuration(withResources(
                    withNotBefore(old, "Mon, 11 Apr 2022 23:00:00 GMT"), "vm9"), 60), "other");

            assertThat(detector.detect(doc(3, old), doc(4, changed))).isEmpty();
        }

        @Test
        @DisplayName("the same EventId in lower case in the next document")
        void eventIdCase() {
            ScheduledEvent upper = scheduled(A);
            ScheduledEvent lower = withId(upper, A.toLowerCase());

            assertThat(detector.detect(doc(2, upper), doc(3, lower))).isEmpty();
            assertThat(detector.detect(doc(3, lower), doc(4, upper))).isEmpty();
        }
    }

    @Test
    @DisplayName("case-insensitive EventId: a Started lower-case copy is Started, its disappearance Completed")
    void eventIdCaseForStartedAndVanished() {
        ScheduledEvent upper = scheduled(A);
        ScheduledEvent lowerStarted = withId(started(A), A.toLowerCase());

        assertThat(detector.detect(doc(2, upper), doc(3, lowerStarted)))
                .extracting(DetectedTransition::type, DetectedTransition::previousStatus)
                .containsExactly(tuple(TransitionType.Started, "Scheduled"));
        assertThat(detector.detect(doc(3, lowerStarted), doc(4, started(A)))).isEmpty();
        assertThat(detector.detect(doc(3, lowerStarted), doc(4)))
                .extracting(DetectedTransition::type, t -> t.event().eventId())
                .containsExactly(tuple(TransitionType.Completed, A.toLowerCase()));
    }

    @Test
    @DisplayName("several events change in one document: present ones in document order, then vanished ones")
    void severalChangesInOrder() {
        ImdsDocument previous = doc(5, scheduled(A), started(B), scheduled(C), scheduled(D));
        ImdsDocument current = doc(6,
                scheduled("EEEEEEEE-5555-4000-8000-000000000005"),
                withDuration(scheduled(D), 120),
                started(C));

        assertThat(detector.detect(previous, current))
                .extracting(DetectedTransition::type, t -> t.event().eventId(),
                        DetectedTransition::previousStatus, DetectedTransition::currentStatus,
                        DetectedTransition::documentIncarnation)
                .containsExactly(
                        tuple(TransitionType.Scheduled, "EEEEEEEE-5555-4000-8000-000000000005", null, "Scheduled", 6L),
                        tuple(TransitionType.Rescheduled, D, "Scheduled", "Scheduled", 6L),
                        tuple(TransitionType.Started, C, "Scheduled", "Started", 6L),
                        tuple(TransitionType.Cancelled, A, "Scheduled", null, 6L),
                        tuple(TransitionType.Completed, B, "Started", null, 6L));
    }

    @Test
    @DisplayName("incarnation jump 2 → 9: every change since is reported at once")
    void incarnationJump() {
        ImdsDocument two = doc(2, scheduled(A), scheduled(B), started(C));
        ImdsDocument nine = doc(9,
                started(A),
                withNotBefore(scheduled(B), "Tue, 12 Apr 2022 03:00:00 GMT"),
                scheduled(D));

        assertThat(detector.detect(two, nine))
                .extracting(DetectedTransition::type, t -> t.event().eventId(), DetectedTransition::documentIncarnation)
                .containsExactly(
                        tuple(TransitionType.Started, A, 9L),
                        tuple(TransitionType.Rescheduled, B, 9L),
                        tuple(TransitionType.Scheduled, D, 9L),
                        tuple(TransitionType.Completed, C, 9L));
    }

    @Test
    @DisplayName("incarnation reset 57 → 1 with a different event set: compared by content")
    void incarnationReset() {
        ImdsDocument before = doc(57, started(A), scheduled(B), scheduled(C));
        ImdsDocument after = doc(1, scheduled(C), started(D));

        assertThat(detector.detect(before, after))
                .extracting(DetectedTransition::type, t -> t.event().eventId(),
                        DetectedTransition::previousStatus, DetectedTransition::currentStatus,
                        DetectedTransition::documentIncarnation)
                .containsExactly(
                        tuple(TransitionType.Started, D, null, "Started", 1L),
                        tuple(TransitionType.Completed, A, "Started", null, 1L),
                        tuple(TransitionType.Cancelled, B, "Scheduled", null, 1L));
    }

    @Test
    @DisplayName("a vanished event carries its last seen content")
    void vanishedCarriesLastSeen() {
        ScheduledEvent old = withResources(started(A), "WestNO_0", "WestNO_1");
        DetectedTransition t = detector.detect(doc(3, old), doc(4)).get(0);

        assertThat(t.event()).isSameAs(old);
        assertThat(t.event().resources()).containsExactly("WestNO_0", "WestNO_1");
    }

    @Test
    @DisplayName("the seed live-migration sequence 1→2→3→4 yields exactly Scheduled, Started, Completed")
    void seedSequence() {
        List<ImdsDocument> docs = List.of(
                LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_1),
                LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2),
                LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_3),
                LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_4));
        List<DetectedTransition> all = new ArrayList<>();
        ImdsDocument previous = ImdsDocument.NONE;
        for (ImdsDocument doc : docs) {
            all.addAll(detector.detect(previous, doc));
            previous = doc;
        }

        assertThat(all)
                .extracting(DetectedTransition::type, t -> t.event().eventId(),
                        DetectedTransition::previousStatus, DetectedTransition::currentStatus,
                        DetectedTransition::documentIncarnation)
                .containsExactly(
                        tuple(TransitionType.Scheduled, LiveMigrationSeed.EVENT_ID, null, "Scheduled", 2L),
                        tuple(TransitionType.Started, LiveMigrationSeed.EVENT_ID, "Scheduled", "Started", 3L),
                        tuple(TransitionType.Completed, LiveMigrationSeed.EVENT_ID, "Started", null, 4L));
        assertThat(all.get(0).event().notBeforeRaw()).isEqualTo("Mon, 11 Apr 2022 22:26:58 GMT");
        assertThat(all.get(2).event().isStarted()).isTrue();
    }
}
