package io.github.scheduledeventsbridge.delivery.eventgrid;

import com.azure.messaging.eventgrid.EventGridEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;
import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Event Grid schema of the agent's transitions, against the sample of the platform's own Event Grid feed of
 * Scheduled Events (learn.microsoft.com, "Scheduled Events in Event Grid", event type
 * Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted), field by field: Azure's Java client has
 * no type for that event. Every event is read back with Azure's own client (EventGridEvent.fromString).
 */
class EventGridEventsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String VM = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-1";
    private static final String EVENT_ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @Test
    void aTransitionHasThePlatformFeedsShapeFieldByField() throws Exception {
        ObjectNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Freeze",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1", "vm-2");
        JsonNode event = EventGridEvents.event(cloudEvent);

        // The envelope: id, subject, eventType, eventTime, data, dataVersion (the platform's sample also has topic
        // and metadataVersion, which Event Grid itself sets on a custom topic).
        assertThat(fieldNames(event)).containsExactly("id", "subject", "eventType", "eventTime", "data", "dataVersion");
        assertThat(event.path("id").asText()).isEqualTo(cloudEvent.path("id").asText());
        // Sample: "/subscriptions/{subscription-id}/resourceGroups/{rg-name}/providers/Microsoft.Compute/
        // virtualMachineScaleSets/{vmss-name}/providers/microsoft.maintenance/scheduledevents/{event-id}"; here the VM's.
        assertThat(event.path("subject").asText())
                .isEqualTo(VM + "/providers/microsoft.maintenance/scheduledevents/" + EVENT_ID);
        assertThat(event.path("eventType").asText()).isEqualTo("io.github.scheduledeventsbridge.transition.Scheduled");
        assertThat(event.path("eventTime").asText()).isEqualTo("2022-04-11T10:15:00Z");
        assertThat(event.path("dataVersion").asText()).isEqualTo("1.0");

        JsonNode data = event.path("data");
        assertThat(fieldNames(data)).containsExactly("resourceInfo", "transition", "bridge");
        JsonNode resourceInfo = data.path("resourceInfo");
        // Sample: "id", "name": "{event-id}", "type": "microsoft.maintenance/scheduledEvents", "location": "eastus".
        assertThat(fieldNames(resourceInfo)).containsExactly("id", "name", "type", "location", "properties");
        assertThat(resourceInfo.path("id").asText()).isEqualTo(event.path("subject").asText());
        assertThat(resourceInfo.path("name").asText()).isEqualTo(EVENT_ID);
        assertThat(resourceInfo.path("type").asText()).isEqualTo("microsoft.maintenance/scheduledEvents");
        assertThat(resourceInfo.path("location").asText()).isEqualTo("norwayeast");

        JsonNode properties = resourceInfo.path("properties");
        // Sample: the IMDS names, in the sample's order.
        assertThat(fieldNames(properties)).containsExactly("DurationInSeconds", "Description", "EventId", "EventSource",
                "EventStatus", "EventType", "NotBefore", "Resources", "ResourceType");
        assertThat(properties.path("DurationInSeconds").isInt()).isTrue();
        assertThat(properties.path("DurationInSeconds").asInt()).isEqualTo(5);
        assertThat(properties.path("Description").asText())
                .isEqualTo("Virtual machine is being paused because of a memory-preserving Live Migration operation.");
        assertThat(properties.path("EventId").asText()).isEqualTo(EVENT_ID);
        assertThat(properties.path("EventSource").asText()).isEqualTo("Platform");
        assertThat(properties.path("EventStatus").asText()).isEqualTo("Scheduled");
        assertThat(properties.path("EventType").asText()).isEqualTo("Freeze");
        // Sample: "NotBefore": "Mon, 19 Sep 2025 18:29:47 GMT" (RFC 1123, as IMDS writes it).
        assertThat(properties.path("NotBefore").asText()).isEqualTo("Mon, 11 Apr 2022 22:26:58 GMT");
        assertThat(properties.path("Resources")).containsExactly(MAPPER.valueToTree("vm-1"), MAPPER.valueToTree("vm-2"));
        assertThat(properties.path("ResourceType").asText()).isEqualTo("VirtualMachine");

        // The agent's own: its transition, and the CloudEvent's data as it is.
        assertThat(data.path("transition").asText()).isEqualTo("Scheduled");
        assertThat(data.path("bridge")).isEqualTo(cloudEvent.path("data"));

        EventGridEvent parsed = parse(event).get(0);
        assertThat(parsed.getId()).isEqualTo(cloudEvent.path("id").asText());
        assertThat(parsed.getSubject()).isEqualTo(event.path("subject").asText());
        assertThat(parsed.getEventType()).isEqualTo("io.github.scheduledeventsbridge.transition.Scheduled");
        assertThat(parsed.getDataVersion()).isEqualTo("1.0");
        assertThat(parsed.getEventTime()).isEqualTo(OffsetDateTime.parse("2022-04-11T10:15:00Z"));
        // Azure's client keeps the data (it leaves out null members, e.g. previousStatus of a first Scheduled).
        JsonNode parsedData = MAPPER.readTree(parsed.getData().toBytes());
        assertThat(parsedData.path("resourceInfo")).isEqualTo(data.path("resourceInfo"));
        assertThat(parsedData.path("transition").asText()).isEqualTo("Scheduled");
        assertThat(parsedData.path("bridge").path("eventId").asText()).isEqualTo(EVENT_ID);
    }

    /** The platform's statuses: Canceled with one l, Completed; a rescheduled or approved event is still Scheduled. */
    @ParameterizedTest
    @CsvSource({
            "Scheduled, Scheduled", "Started, Started", "Rescheduled, Scheduled", "Approved, Scheduled",
            "Completed, Completed", "Cancelled, Canceled"})
    void eventStatusIsSpelledAsThePlatformSpellsIt(TransitionType transition, String platformStatus) throws Exception {
        JsonNode event = EventGridEvents.event(SampleEvents.cloudEvent(transition, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        assertThat(event.path("data").path("resourceInfo").path("properties").path("EventStatus").asText())
                .isEqualTo(platformStatus);
        assertThat(event.path("data").path("transition").asText()).isEqualTo(transition.name());
        assertThat(parse(event)).hasSize(1);
    }

    @Test
    void aStartedEventHasAnEmptyNotBeforeAsOnThePlatform() {
        JsonNode event = EventGridEvents.event(SampleEvents.cloudEvent(TransitionType.Started, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        assertThat(event.path("data").path("resourceInfo").path("properties").path("NotBefore").asText()).isEmpty();
    }

    @Test
    void beforeImdsNamedTheVmTheSubjectIsScopedToTheAgentsUnknownSource() throws Exception {
        ObjectNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", null, "vm-1");
        JsonNode event = EventGridEvents.event(cloudEvent);
        assertThat(event.path("subject").asText()).isEqualTo(cloudEvent.path("source").asText()
                + "/providers/microsoft.maintenance/scheduledevents/" + EVENT_ID);
        assertThat(event.path("data").path("resourceInfo").has("location")).isFalse();
        assertThat(parse(event)).hasSize(1);
    }

    @Test
    void theSameTransitionAlwaysGetsTheSameId() {
        JsonNode first = EventGridEvents.event(SampleEvents.cloudEvent(TransitionType.Cancelled, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        JsonNode again = EventGridEvents.event(SampleEvents.cloudEvent(TransitionType.Cancelled, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        JsonNode other = EventGridEvents.event(SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        assertThat(again.path("id")).isEqualTo(first.path("id"));
        assertThat(other.path("id")).isNotEqualTo(first.path("id"));
    }

    @Test
    void cloudEventsTopicsGetTheCloudEventsAsTheyAre() throws Exception {
        ObjectNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Reboot",
                "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1");
        byte[] spooled = MAPPER.writeValueAsBytes(MAPPER.createArrayNode().add(cloudEvent));
        List<byte[]> events = EventGridRequests.events(spooled, WebhookFormat.EVENTGRID_CLOUDEVENTS);
        assertThat(new String(events.get(0), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(MAPPER.writeValueAsString(cloudEvent));
    }

    static List<EventGridEvent> parse(JsonNode eventOrArray) throws Exception {
        JsonNode array = eventOrArray.isArray() ? eventOrArray : MAPPER.createArrayNode().add(eventOrArray);
        return EventGridEvent.fromString(MAPPER.writeValueAsString(array));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
