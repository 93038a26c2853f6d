package io.github.scheduledeventsbridge.imds;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;

import static io.github.scheduledeventsbridge.imds.LiveMigrationSeed.DESCRIPTION;
import static io.github.scheduledeventsbridge.imds.LiveMigrationSeed.EVENT_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImdsDocumentParserTest {

    private final ImdsDocumentParser parser = new ImdsDocumentParser();

    @Nested
    @DisplayName("the seed live-migration documents parse exactly")
    class Seed {

        @Test
        void incarnation1IsEmpty() {
            ImdsDocument doc = parser.parse(LiveMigrationSeed.INCARNATION_1);
            assertThat(doc.incarnation()).isEqualTo(1);
            assertThat(doc.events()).isEmpty();
        }

        @Test
        void incarnation2HasTheScheduledFreeze() {
            ImdsDocument doc = parser.parse(LiveMigrationSeed.INCARNATION_2);

            assertThat(doc.incarnation()).isEqualTo(2);
            assertThat(doc.events()).containsExactly(new ScheduledEvent(EVENT_ID, "Freeze", "VirtualMachine",
                    List.of("WestNO_0", "WestNO_1"), "Scheduled", "Mon, 11 Apr 2022 22:26:58 GMT", DESCRIPTION,
                    "Platform", 5));
            ScheduledEvent event = doc.events().get(0);
            assertThat(event.notBefore()).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
            assertThat(event.isScheduled()).isTrue();
            assertThat(event.isStarted()).isFalse();
        }

        @Test
        void incarnation3HasTheSameEventStartedWithEmptyNotBefore() {
            ImdsDocument doc = parser.parse(LiveMigrationSeed.INCARNATION_3);

            assertThat(doc.incarnation()).isEqualTo(3);
            assertThat(doc.events()).containsExactly(new ScheduledEvent(EVENT_ID, "Freeze", "VirtualMachine",
                    List.of("WestNO_0", "WestNO_1"), "Started", "", DESCRIPTION, "Platform", 5));
            assertThat(doc.events().get(0).notBefore()).isNull();
            assertThat(doc.events().get(0).isStarted()).isTrue();
        }

        @Test
        void incarnation4IsEmpty() {
            ImdsDocument doc = parser.parse(LiveMigrationSeed.INCARNATION_4);
            assertThat(doc).isEqualTo(new ImdsDocument(4, List.of()));
        }

        @Test
        void findIgnoresCase() {
            ImdsDocument doc = parser.parse(LiveMigrationSeed.INCARNATION_2);
            assertThat(doc.find(EVENT_ID.toLowerCase())).isPresent();
            assertThat(doc.find("00000000-0000-0000-0000-000000000000")).isEmpty();
        }
    }

    @Nested
    @DisplayName("anything but a complete document is rejected")
    class Rejected {

        @ParameterizedTest(name = "[{index}] \"{0}\"")
        @ValueSource(strings = {"", " ", "\n\t  \r\n"})
        void emptyOrWhitespace(String body) {
            assertRejected(body);
        }

        @Test
        void nullBody() {
            assertRejected(null);
        }

        @Test
        void documentCutInHalf() {
            String doc = LiveMigrationSeed.INCARNATION_2;
            assertRejected(doc.substring(0, doc.length() / 2));
        }

        @Test
        @DisplayName("every 7th prefix of a valid document (and the one missing only the last brace)")
        void everyTruncation() {
            String doc = LiveMigrationSeed.INCARNATION_2;
            int checked = 0;
            for (int cut = 0; cut < doc.length(); cut += 7) {
                String prefix = doc.substring(0, cut);
                assertThatThrownBy(() -> parser.parse(prefix))
                        .as("prefix of %d characters: %s", cut, prefix)
                        .isInstanceOf(InvalidDocumentException.class);
                checked++;
            }
            assertRejected(doc.substring(0, doc.length() - 1));
            assertThat(checked).isGreaterThan(50);
            // The untruncated document is accepted, so the loop above really tested truncation.
            assertThat(parser.parse(doc).events()).hasSize(1);
        }

        @Test
        void jsonNull() {
            assertRejected("null");
        }

        @Test
        void jsonArray() {
            assertRejected("[" + LiveMigrationSeed.INCARNATION_2 + "]");
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @ValueSource(strings = {"\"document\"", "42", "true"})
        void otherScalars(String body) {
            assertRejected(body);
        }

        @Test
        void missingIncarnation() {
            assertRejected("{\"Events\": []}");
        }

        @ParameterizedTest(name = "[{index}] DocumentIncarnation: {0}")
        @ValueSource(strings = {"\"2\"", "2.5", "2.0", "null", "{}", "[]", "true", "99999999999999999999999"})
        void nonIntegerIncarnation(String incarnation) {
            assertRejected("{\"DocumentIncarnation\": " + incarnation + ", \"Events\": []}");
        }

        @Test
        void missingEvents() {
            assertRejected("{\"DocumentIncarnation\": 2}");
        }

        @ParameterizedTest(name = "[{index}] Events: {0}")
        @ValueSource(strings = {"{}", "null", "\"[]\"", "5"})
        void eventsNotAnArray(String events) {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": " + events + "}");
        }

        @Test
        void eventNotAnObject() {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": [\"" + EVENT_ID + "\"]}");
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @ValueSource(strings = {
                "{\"EventStatus\": \"Scheduled\"}",
                "{\"EventId\": null, \"EventStatus\": \"Scheduled\"}",
                "{\"EventId\": \"\", \"EventStatus\": \"Scheduled\"}",
                "{\"EventId\": \"  \", \"EventStatus\": \"Scheduled\"}"})
        void eventWithoutEventId(String event) {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": [" + event + "]}");
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @ValueSource(strings = {
                "{\"EventId\": \"A\"}",
                "{\"EventId\": \"A\", \"EventStatus\": null}",
                "{\"EventId\": \"A\", \"EventStatus\": \"\"}"})
        void eventWithoutEventStatus(String event) {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": [" + event + "]}");
        }

        @Test
        void duplicateEventId() {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": ["
                    + "{\"EventId\": \"" + EVENT_ID + "\", \"EventStatus\": \"Scheduled\"},"
                    + "{\"EventId\": \"" + EVENT_ID + "\", \"EventStatus\": \"Started\"}]}");
        }

        @Test
        void duplicateEventIdDifferingOnlyInCase() {
            assertRejected("{\"DocumentIncarnation\": 2, \"Events\": ["
                    + "{\"EventId\": \"" + EVENT_ID + "\", \"EventStatus\": \"Scheduled\"},"
                    + "{\"EventId\": \"" + EVENT_ID.toLowerCase() + "\", \"EventStatus\": \"Scheduled\"}]}");
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @ValueSource(strings = {
                "{\"DocumentIncarnation\": 5, \"Events\": []}garbage",
                "{\"DocumentIncarnation\": 5, \"Events\": []}]",
                "{\"DocumentIncarnation\": 5, \"Events\": []}{\"DocumentIncarnation\": 6, \"Events\": [{\"EventId\""})
        @DisplayName("a document followed by anything but whitespace is not a complete document")
        void trailingContent(String body) {
            // Accepting these would turn a corrupted answer into "every event is gone" (Completed/Cancelled).
            assertRejected(body);
        }

        private void assertRejected(String body) {
            assertThatThrownBy(() -> parser.parse(body))
                    .isInstanceOf(InvalidDocumentException.class)
                    .hasMessageStartingWith("IMDS document rejected: ");
        }
    }

    @Test
    @DisplayName("whitespace around the document is fine")
    void surroundingWhitespace() {
        ImdsDocument doc = parser.parse("\r\n  " + LiveMigrationSeed.INCARNATION_2 + "\n\n");
        assertThat(doc).isEqualTo(parser.parse(LiveMigrationSeed.INCARNATION_2));
    }

    @Test
    @DisplayName("missing optional fields are tolerated: null, and no resources")
    void optionalFieldsMayBeMissing() {
        ImdsDocument doc = parser.parse(
                "{\"DocumentIncarnation\": 7, \"Events\": [{\"EventId\": \"A\", \"EventStatus\": \"Scheduled\"}]}");

        ScheduledEvent event = doc.events().get(0);
        assertThat(event.eventId()).isEqualTo("A");
        assertThat(event.eventStatus()).isEqualTo("Scheduled");
        assertThat(event.eventType()).isNull();
        assertThat(event.resourceType()).isNull();
        assertThat(event.resources()).isEmpty();
        assertThat(event.notBeforeRaw()).isNull();
        assertThat(event.notBefore()).isNull();
        assertThat(event.description()).isNull();
        assertThat(event.eventSource()).isNull();
        assertThat(event.durationInSeconds()).isNull();
    }

    @Test
    @DisplayName("explicit nulls and an unknown NotBefore are tolerated too")
    void explicitNullsTolerated() {
        ImdsDocument doc = parser.parse("{\"DocumentIncarnation\": 7, \"Events\": [{\"EventId\": \"A\","
                + " \"EventStatus\": \"Scheduled\", \"EventType\": null, \"Resources\": null,"
                + " \"NotBefore\": \"someday\", \"DurationInSeconds\": null, \"Unknown\": {\"x\": 1}}],"
                + " \"AlsoUnknown\": true}");

        ScheduledEvent event = doc.events().get(0);
        assertThat(event.eventType()).isNull();
        assertThat(event.resources()).isEmpty();
        assertThat(event.notBeforeRaw()).isEqualTo("someday");
        assertThat(event.notBefore()).isNull();
        assertThat(event.durationInSeconds()).isNull();
    }

    @Test
    @DisplayName("events keep the document's order")
    void documentOrder() {
        ImdsDocument doc = parser.parse("{\"DocumentIncarnation\": 1, \"Events\": ["
                + "{\"EventId\": \"C\", \"EventStatus\": \"Scheduled\"},"
                + "{\"EventId\": \"A\", \"EventStatus\": \"Started\"},"
                + "{\"EventId\": \"B\", \"EventStatus\": \"Scheduled\"}]}");
        assertThat(doc.events()).extracting(ScheduledEvent::eventId).containsExactly("C", "A", "B");
    }

    @ParameterizedTest(name = "[{index}] seed document {index}")
    @ValueSource(strings = {LiveMigrationSeed.INCARNATION_1, LiveMigrationSeed.INCARNATION_2,
            LiveMigrationSeed.INCARNATION_3, LiveMigrationSeed.INCARNATION_4})
    @DisplayName("toJson round-trips through parse")
    void toJsonRoundTrips(String seed) {
        ImdsDocument doc = parser.parse(seed);
        assertThat(parser.parse(ImdsDocumentParser.toJson(doc).toString())).isEqualTo(doc);
    }

    @Test
    @DisplayName("toJson round-trips an event with every optional field missing")
    void toJsonRoundTripsNulls() {
        ImdsDocument doc = new ImdsDocument(12, List.of(
                new ScheduledEvent("A", null, null, List.of(), "Scheduled", null, null, null, null),
                new ScheduledEvent("b", "Reboot", "VirtualMachine", List.of("vm1"), "Started", "", "d", "User", -1)));
        String json = ImdsDocumentParser.toJson(doc).toString();

        assertThat(json).contains("\"DocumentIncarnation\":12");
        assertThat(parser.parse(json)).isEqualTo(doc);
    }
}
