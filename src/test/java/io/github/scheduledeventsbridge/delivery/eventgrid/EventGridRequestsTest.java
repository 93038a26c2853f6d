package io.github.scheduledeventsbridge.delivery.eventgrid;

import com.azure.messaging.eventgrid.EventGridEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;
import io.github.scheduledeventsbridge.testing.SampleEvents;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A document's events as Event Grid requests: JSON arrays of at most 1 MB, in order, each one Azure's client reads. */
class EventGridRequestsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void aDocumentTooBigForOneRequestIsCutInOrderIntoRequestsOfAtMostOneMegabyte() throws Exception {
        ArrayNode batch = MAPPER.createArrayNode();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // About 60 KB each (a long Resources list): 40 of them are about 2.4 MB.
            String[] resources = new String[2000];
            for (int r = 0; r < resources.length; r++) {
                resources[r] = "vmss_" + i + "_" + r + "_with_a_long_name";
            }
            ObjectNode cloudEvent = SampleEvents.cloudEvent(TransitionType.Scheduled, "Freeze",
                    "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", resources);
            cloudEvent.put("id", "id-" + i);
            batch.add(cloudEvent);
            ids.add("id-" + i);
        }
        List<byte[]> requests = EventGridRequests.requests(
                EventGridRequests.events(MAPPER.writeValueAsBytes(batch), WebhookFormat.EVENTGRID),
                EventGridRequests.MAX_REQUEST_BYTES);

        assertThat(requests).hasSizeGreaterThanOrEqualTo(3);
        List<String> sent = new ArrayList<>();
        for (byte[] request : requests) {
            assertThat(request.length).isLessThanOrEqualTo(1_000_000);
            for (EventGridEvent event : EventGridEvent.fromString(new String(request, StandardCharsets.UTF_8))) {
                sent.add(event.getId());
            }
        }
        assertThat(sent).as("every event once, in order").isEqualTo(ids);
    }

    @Test
    void aTypicalDocumentIsOneRequest() throws Exception {
        ArrayNode batch = MAPPER.createArrayNode();
        for (TransitionType type : List.of(TransitionType.Scheduled, TransitionType.Approved)) {
            batch.add(SampleEvents.cloudEvent(type, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1", "vm-1"));
        }
        List<byte[]> requests = EventGridRequests.requests(
                EventGridRequests.events(MAPPER.writeValueAsBytes(batch), WebhookFormat.EVENTGRID), 1_000_000);
        assertThat(requests).hasSize(1);
        assertThat(EventGridEvent.fromString(new String(requests.get(0), StandardCharsets.UTF_8))).hasSize(2);
    }

    @Test
    void requestsAreFilledUpToTheLimitExactlyAndAnOversizedEventTravelsAlone() {
        byte[] ten = "{\"a\":\"45\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(ten).hasSize(10);
        // [ + 10 + , + 10 + ] = 23 bytes: fits a limit of 23, not of 22.
        assertThat(EventGridRequests.requests(List.of(ten, ten), 23)).hasSize(1);
        assertThat(EventGridRequests.requests(List.of(ten, ten), 22)).hasSize(2);
        byte[] big = ("{\"a\":\"" + "x".repeat(100) + "\"}").getBytes(StandardCharsets.UTF_8);
        List<byte[]> requests = EventGridRequests.requests(List.of(ten, big, ten), 50);
        assertThat(requests).extracting(r -> new String(r, StandardCharsets.UTF_8))
                .containsExactly("[" + new String(ten, StandardCharsets.UTF_8) + "]",
                        "[" + new String(big, StandardCharsets.UTF_8) + "]",
                        "[" + new String(ten, StandardCharsets.UTF_8) + "]");
    }
}
