package io.github.scheduledeventsbridge.delivery.eventlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.eventlog.EntryType;
import io.github.scheduledeventsbridge.eventlog.EventLogEntry;
import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each transition and action outcome as the Event Log entry monitoring selects by id and level. */
class EventLogEntryTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @ParameterizedTest
    @CsvSource({
            "Scheduled,   1001, WARNING,     Reboot of vm-1 scheduled not before 22:26 UTC",
            "Started,     1002, WARNING,     Reboot of vm-1 started",
            "Rescheduled, 1003, INFORMATION, Reboot of vm-1 rescheduled to not before 22:26 UTC",
            "Completed,   1004, INFORMATION, Reboot of vm-1 completed",
            "Cancelled,   1005, INFORMATION, Reboot of vm-1 cancelled",
            "Approved,    1006, INFORMATION, Reboot of vm-1 approved"})
    void eachTransitionHasItsFixedIdAndLevelAHeadlineAndTheCloudEvent(TransitionType transition, int id,
                                                                       EntryType type, String headline) throws Exception {
        ObjectNode cloudEvent = SampleEvents.cloudEvent(transition, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1",
                "vm-1");
        String json = MAPPER.writeValueAsString(cloudEvent);

        EventLogEntry entry = EventLogKind.entry(cloudEvent, json);

        assertThat(entry.eventId()).isEqualTo(id);
        assertThat(entry.type()).isEqualTo(type);
        String[] parts = entry.message().split("\r\n\r\n", 2);
        assertThat(parts[0]).isEqualTo(headline);
        assertThat(MAPPER.readTree(parts[1])).as("the CloudEvent, parsable").isEqualTo(MAPPER.readTree(json));
    }

    @Test
    void actionOutcomesAndDryRunsHaveTheirOwnIdsAndAFailureIsAnError() {
        assertThat(entry(action("ActionSucceeded", "succeeded"))).extracting(EventLogEntry::eventId, EventLogEntry::type)
                .containsExactly(1101, EntryType.INFORMATION);
        EventLogEntry timedOut = entry(action("ActionFailed", "timed-out"));
        assertThat(timedOut).extracting(EventLogEntry::eventId, EventLogEntry::type)
                .containsExactly(1102, EntryType.ERROR);
        assertThat(timedOut.message()).startsWith("Reboot of vm-1: prepare command timed-out\r\n\r\n");

        ObjectNode dryRun = SampleEvents.cloudEvent(TransitionType.Approved, "Freeze", "", "vm-1", "vm-1");
        ((ObjectNode) dryRun.path("data")).putObject("approval").put("by", "policy").put("rule", "freeze")
                .put("dryRun", true);
        assertThat(entry(dryRun)).extracting(EventLogEntry::eventId, EventLogEntry::type)
                .containsExactly(1007, EntryType.INFORMATION);
        assertThat(entry(dryRun).message()).startsWith("DRY RUN: ");

        ObjectNode unknown = action("SomethingNew", "?");
        assertThat(entry(unknown).eventId()).as("a kind from a later version").isEqualTo(1999);
    }

    @Test
    void theEventIdsAreDistinctAndAllBelowTheEventViewersLimit() {
        assertThat(Arrays.stream(EventLogKind.values()).map(EventLogKind::eventId)).doesNotHaveDuplicates()
                .allMatch(id -> id > 0 && id <= 0xFFFF);
    }

    @Test
    void aMessageOverTheEventLogsLimitIsCutWithinItNeverInsideACharacterAndSaysSo() throws Exception {
        ObjectNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Freeze", "", "vm-1", "vm-1");
        // 𝄞 is two UTF-16 units: whatever the cut, no half of one may remain.
        for (int pad = 0; pad < 2; pad++) {
            ((ObjectNode) cloudEvent.path("data")).put("description", "x".repeat(pad) + "𝄞".repeat(20_000));
            EventLogEntry entry = EventLogKind.entry(cloudEvent, MAPPER.writeValueAsString(cloudEvent));

            assertThat(entry.message().length()).isLessThanOrEqualTo(EventLogEntry.MAX_MESSAGE).isGreaterThan(31_000);
            assertThat(entry.message()).startsWith("Freeze of vm-1 scheduled")
                    .endsWith("characters, the Event Log keeps 31839]").contains(cloudEvent.path("id").asText());
            String beforeTail = entry.message().substring(0, entry.message().indexOf("… [cut"));
            assertThat(Character.isHighSurrogate(beforeTail.charAt(beforeTail.length() - 1))).isFalse();
        }
        String small = "headline\r\n\r\n{}";
        assertThat(EventLogEntry.limit(small, "id")).isSameAs(small);
    }

    @Test
    void theTableInTheReferenceConfigurationIsTheOneTheCodeUses() throws Exception {
        String reference = Files.readString(Path.of("config/application.properties"));
        Map<EventLogKind, String> names = Map.of(EventLogKind.APPROVAL_DRY_RUN, "approval dry run",
                EventLogKind.OTHER, "any other");
        for (EventLogKind kind : EventLogKind.values()) {
            assertThat(reference).contains(kind.eventId() + " " + names.getOrDefault(kind, kind.transition()));
        }
        assertThat(reference).contains("Scheduled and Started are warnings", "ActionFailed an error");
        assertThat(Arrays.stream(EventLogKind.values()).filter(k -> k.type() == EntryType.WARNING))
                .containsExactlyInAnyOrder(EventLogKind.SCHEDULED, EventLogKind.STARTED);
        assertThat(Arrays.stream(EventLogKind.values()).filter(k -> k.type() == EntryType.ERROR))
                .containsExactly(EventLogKind.ACTION_FAILED);
    }

    private static EventLogEntry entry(JsonNode cloudEvent) {
        try {
            return EventLogKind.entry(cloudEvent, MAPPER.writeValueAsString(cloudEvent));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The shape ActionRunner gives an action's outcome. */
    private static ObjectNode action(String transition, String outcome) {
        ObjectNode ce = SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot", "", "vm-1", "vm-1");
        ce.put("type", "io.github.scheduledeventsbridge.action." + (outcome.equals("succeeded") ? "Succeeded" : "Failed"));
        ObjectNode data = (ObjectNode) ce.path("data");
        data.put("transition", transition).put("action", "prepare").put("outcome", outcome);
        return ce;
    }
}
