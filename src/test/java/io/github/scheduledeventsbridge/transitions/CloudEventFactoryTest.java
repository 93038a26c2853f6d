package io.github.scheduledeventsbridge.transitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.imds.ImdsDocument;
import io.github.scheduledeventsbridge.imds.LiveMigrationSeed;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class CloudEventFactoryTest {

    private static final Instant NOW = Instant.parse("2026-11-20T10:15:00Z");
    private static final VmIdentity.Vm VM = new VmIdentity.Vm("WestNO_0", "5c8f3b7e-4d2a-4b7c-9a1e-0f6d2c3b4a59",
            "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/WestNO_0",
            "norwaywest");

    private static final ImdsDocument INC2 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2);
    private static final ImdsDocument INC3 = LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_3);
    private static final ScheduledEvent SCHEDULED_FREEZE = INC2.events().get(0);
    private static final ScheduledEvent STARTED_FREEZE = INC3.events().get(0);
    private static final DetectedTransition SCHEDULED =
            new DetectedTransition(TransitionType.Scheduled, SCHEDULED_FREEZE, null, "Scheduled", 2);

    private static CloudEventFactory factory(Instant now, VmIdentity.Vm vm) {
        VmIdentity identity = new VmIdentity(Clock.fixed(now, ZoneOffset.UTC));
        if (vm != null) {
            identity.set(vm);
        }
        return new CloudEventFactory(Clock.fixed(now, ZoneOffset.UTC), identity);
    }

    @Test
    @DisplayName("a Scheduled Freeze carries every field of docs/messages.md with its value")
    void everyField() {
        ObjectNode ce = factory(NOW, VM).create(SCHEDULED);

        assertThat(fieldNames(ce)).containsExactlyInAnyOrder(
                "specversion", "id", "source", "type", "subject", "time", "datacontenttype", "data");
        assertThat(ce.get("specversion").asText()).isEqualTo("1.0");
        assertThat(UUID.fromString(ce.get("id").asText())).isNotNull();
        assertThat(ce.get("source").asText()).isEqualTo(VM.resourceId());
        assertThat(ce.get("type").asText()).isEqualTo(CloudEventFactory.TYPE_PREFIX + "Scheduled");
        assertThat(ce.get("subject").asText()).isEqualTo(LiveMigrationSeed.EVENT_ID);
        assertThat(ce.get("time").asText()).isEqualTo("2026-11-20T10:15:00Z");
        assertThat(ce.get("datacontenttype").asText()).isEqualTo("application/json");

        JsonNode data = ce.get("data");
        assertThat(fieldNames(data)).containsExactlyInAnyOrder("transition", "eventId", "eventType", "eventStatus",
                "previousStatus", "resourceType", "resources", "notBefore", "description", "eventSource",
                "durationInSeconds", "documentIncarnation", "vm");
        assertThat(data.get("transition").asText()).isEqualTo("Scheduled");
        assertThat(data.get("eventId").asText()).isEqualTo(LiveMigrationSeed.EVENT_ID);
        assertThat(data.get("eventType").asText()).isEqualTo("Freeze");
        assertThat(data.get("eventStatus").asText()).isEqualTo("Scheduled");
        assertThat(data.get("previousStatus").isNull()).as("previousStatus is JSON null").isTrue();
        assertThat(data.get("resourceType").asText()).isEqualTo("VirtualMachine");
        assertThat(data.get("resources").isArray()).isTrue();
        assertThat(data.get("resources")).extracting(JsonNode::asText).containsExactly("WestNO_0", "WestNO_1");
        assertThat(data.get("notBefore").asText()).isEqualTo("2022-04-11T22:26:58Z");
        assertThat(data.get("description").asText()).isEqualTo(LiveMigrationSeed.DESCRIPTION);
        assertThat(data.get("eventSource").asText()).isEqualTo("Platform");
        assertThat(data.get("durationInSeconds").isInt()).isTrue();
        assertThat(data.get("durationInSeconds").asInt()).isEqualTo(5);
        assertThat(data.get("documentIncarnation").isIntegralNumber()).isTrue();
        assertThat(data.get("documentIncarnation").asLong()).isEqualTo(2);

        JsonNode vm = data.get("vm");
        assertThat(fieldNames(vm)).containsExactlyInAnyOrder("name", "vmId", "resourceId", "location");
        assertThat(vm.get("name").asText()).isEqualTo("WestNO_0");
        assertThat(vm.get("vmId").asText()).isEqualTo(VM.vmId());
        assertThat(vm.get("resourceId").asText()).isEqualTo(VM.resourceId());
        assertThat(vm.get("location").asText()).isEqualTo("norwaywest");
    }

    @Test
    @DisplayName("an ending decided without watching carries data.startObserved=false; other transitions have no such field")
    void startObservedOnlyWhenDecidedOnEvidence() {
        CloudEventFactory factory = factory(NOW, VM);
        ObjectNode unwatched = factory.create(new DetectedTransition(TransitionType.Completed, SCHEDULED_FREEZE,
                "Scheduled", null, 3, null, false));

        assertThat(unwatched.at("/data/startObserved").isBoolean()).isTrue();
        assertThat(unwatched.at("/data/startObserved").asBoolean()).isFalse();
        assertThat(factory.create(SCHEDULED).get("data").has("startObserved")).isFalse();
    }

    @Test
    @DisplayName("type is the prefix + the transition name, for every transition")
    void typePerTransition() {
        CloudEventFactory factory = factory(NOW, VM);
        assertThat(CloudEventFactory.TYPE_PREFIX).endsWith(".");
        for (TransitionType type : TransitionType.values()) {
            ObjectNode ce = factory.create(new DetectedTransition(type, SCHEDULED_FREEZE, "Scheduled", "Scheduled", 2));
            assertThat(ce.get("type").asText()).isEqualTo(CloudEventFactory.TYPE_PREFIX + type.name());
            assertThat(ce.at("/data/transition").asText()).isEqualTo(type.name());
        }
    }

    @Test
    @DisplayName("time is the clock's instant in ISO-8601 UTC, to the millisecond")
    void timeFromClock() {
        ObjectNode ce = factory(Instant.parse("2026-11-20T10:15:00.123456789Z"), VM).create(SCHEDULED);
        assertThat(ce.get("time").asText()).isEqualTo("2026-11-20T10:15:00.123Z");
    }

    @Test
    @DisplayName("vm is absent while the identity is unknown, and source still names something")
    void unknownIdentity() {
        ObjectNode ce = factory(NOW, null).create(SCHEDULED);

        assertThat(ce.get("data").has("vm")).isFalse();
        assertThat(ce.get("source").asText()).isNotBlank().isNotEqualTo(VM.resourceId());
    }

    @Test
    @DisplayName("without a resourceId, source falls back to a URN naming the VM")
    void sourceWithoutResourceId() {
        ObjectNode ce = factory(NOW, new VmIdentity.Vm("WestNO_0", null, null, null)).create(SCHEDULED);

        assertThat(ce.get("source").asText()).isNotBlank().contains("WestNO_0");
        assertThat(ce.at("/data/vm/name").asText()).isEqualTo("WestNO_0");
        assertThat(ce.at("/data/vm/resourceId").isNull()).isTrue();
    }

    @Test
    @DisplayName("id is the same for the same transition created twice at different times")
    void stableId() {
        ObjectNode first = factory(NOW, VM).create(SCHEDULED);
        ObjectNode later = factory(NOW.plusSeconds(3600), VM).create(
                new DetectedTransition(TransitionType.Scheduled, SCHEDULED_FREEZE, null, "Scheduled", 2));

        assertThat(later.get("time").asText()).isNotEqualTo(first.get("time").asText());
        assertThat(later.get("id").asText()).isEqualTo(first.get("id").asText());
    }

    @Test
    @DisplayName("id does not depend on the EventId's case")
    void idIgnoresEventIdCase() {
        ScheduledEvent lower = new ScheduledEvent(LiveMigrationSeed.EVENT_ID.toLowerCase(), "Freeze",
                "VirtualMachine", SCHEDULED_FREEZE.resources(), "Scheduled", SCHEDULED_FREEZE.notBeforeRaw(),
                SCHEDULED_FREEZE.description(), "Platform", 5);
        CloudEventFactory factory = factory(NOW, VM);

        assertThat(factory.create(new DetectedTransition(TransitionType.Scheduled, lower, null, "Scheduled", 2))
                .get("id").asText()).isEqualTo(factory.create(SCHEDULED).get("id").asText());
    }

    @Test
    @DisplayName("id differs for another transition, another incarnation, another event or another VM")
    void distinctIds() {
        CloudEventFactory factory = factory(NOW, VM);
        ScheduledEvent other = new ScheduledEvent("D0000000-0000-4000-8000-000000000000", "Freeze", "VirtualMachine",
                List.of("WestNO_0"), "Scheduled", "", null, "Platform", 5);
        List<String> ids = new ArrayList<>();
        ids.add(factory.create(SCHEDULED).get("id").asText());
        ids.add(factory.create(new DetectedTransition(TransitionType.Started, STARTED_FREEZE, "Scheduled", "Started", 3))
                .get("id").asText());
        ids.add(factory.create(new DetectedTransition(TransitionType.Scheduled, SCHEDULED_FREEZE, null, "Scheduled", 7))
                .get("id").asText());
        ids.add(factory.create(new DetectedTransition(TransitionType.Rescheduled, SCHEDULED_FREEZE, "Scheduled",
                "Scheduled", 2)).get("id").asText());
        ids.add(factory.create(new DetectedTransition(TransitionType.Scheduled, other, null, "Scheduled", 2))
                .get("id").asText());
        ids.add(factory(NOW, new VmIdentity.Vm("vm2", "x", "/subscriptions/0000/vm2", "westeurope"))
                .create(SCHEDULED).get("id").asText());

        assertThat(ids).doesNotHaveDuplicates().hasSize(6);
    }

    @Test
    @DisplayName("Completed: eventStatus null, previousStatus Started, notBefore null (IMDS sent \"\")")
    void completed() {
        ObjectNode ce = factory(NOW, VM).create(
                new DetectedTransition(TransitionType.Completed, STARTED_FREEZE, "Started", null, 4));

        JsonNode data = ce.get("data");
        assertThat(ce.get("type").asText()).isEqualTo(CloudEventFactory.TYPE_PREFIX + "Completed");
        assertThat(data.has("eventStatus")).isTrue();
        assertThat(data.get("eventStatus").isNull()).isTrue();
        assertThat(data.get("previousStatus").asText()).isEqualTo("Started");
        assertThat(data.has("notBefore")).isTrue();
        assertThat(data.get("notBefore").isNull()).isTrue();
        assertThat(data.get("documentIncarnation").asLong()).isEqualTo(4);
        assertThat(data.get("eventType").asText()).isEqualTo("Freeze");
    }

    @Test
    @DisplayName("missing optional event fields become JSON nulls, resources an empty array")
    void optionalFieldsNull() {
        ScheduledEvent bare = new ScheduledEvent("A", null, null, null, "Scheduled", null, null, null, null);
        JsonNode data = factory(NOW, VM).create(
                new DetectedTransition(TransitionType.Scheduled, bare, null, "Scheduled", 1)).get("data");

        for (String field : List.of("eventType", "resourceType", "notBefore", "description", "eventSource",
                "durationInSeconds")) {
            assertThat(data.get(field)).as(field).isNotNull();
            assertThat(data.get(field).isNull()).as(field).isTrue();
        }
        assertThat(data.get("resources").isArray()).isTrue();
        assertThat(data.get("resources")).isEmpty();
    }

    @Test
    @DisplayName("an ISO-8601 NotBefore with an offset is rendered in UTC")
    void notBeforeOffsetToUtc() {
        ScheduledEvent event = new ScheduledEvent("A", "Reboot", "VirtualMachine", List.of("vm1"), "Scheduled",
                "2022-04-12T00:26:58+02:00", null, "User", -1);
        JsonNode data = factory(NOW, VM).create(
                new DetectedTransition(TransitionType.Scheduled, event, null, "Scheduled", 1)).get("data");

        assertThat(data.get("notBefore").asText()).isEqualTo("2022-04-11T22:26:58Z");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
