package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Slack and Teams targets next to a CloudEvents one, behind the webhook filter, over real HTTP. */
class WebhookFormatsAndFiltersTest {

    private static final String ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds();

    @Test
    void eachTargetGetsItsOwnFormatAndOnlyFilteredTransitions() throws Exception {
        ScriptedImds imds = fixture.imds();
        try (WebhookReceiver cloudEvents = WebhookReceiver.start("s"); WebhookReceiver slack = WebhookReceiver.start("s"); WebhookReceiver teams = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(2,
                    Docs.scheduled(ID, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-under-test"),
                    Docs.scheduled("FFFFFFFF-0000-0000-0000-000000000001", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-other")));
            try (InProcessAgent agent = fixture.builder()
                    .with("bridge.webhook.urls", cloudEvents.url() + ",slack:" + slack.url() + ",teams:" + teams.url())
                    .with("bridge.webhook.secret", "s")
                    .with("bridge.webhook.filter.transitions", "Started,Completed")
                    .with("bridge.webhook.filter.resources", "own")
                    .start()) {
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() > served + 2);
                assertThat(cloudEvents.requests()).as("Scheduled is filtered out").isEmpty();

                imds.serve(Docs.document(3, Docs.started(ID, "Reboot", "vm-under-test"),
                        Docs.started("FFFFFFFF-0000-0000-0000-000000000001", "Freeze", "vm-other")));
                await().atMost(Duration.ofSeconds(20)).until(() -> cloudEvents.delivered().size() == 1
                        && slack.delivered().size() == 1 && teams.delivered().size() == 1);
                imds.serve(Docs.document(4));
                await().atMost(Duration.ofSeconds(20)).until(() -> cloudEvents.delivered().size() == 2
                        && slack.delivered().size() == 2 && teams.delivered().size() == 2);
            }
            assertThat(cloudEvents.delivered()).extracting(WebhookReceiver.Request::transition)
                    .containsExactly("Started", "Completed");
            assertThat(cloudEvents.delivered()).extracting(WebhookReceiver.Request::eventId).containsOnly(ID);
            assertThat(cloudEvents.delivered()).allMatch(r -> r.contentType().equals("application/cloudevents+json"));

            assertThat(slack.delivered()).extracting(r -> r.json().path("text").asText())
                    .containsExactly("Reboot of vm-under-test started", "Reboot of vm-under-test completed");
            assertThat(slack.delivered()).allMatch(r -> r.contentType().equals("application/json")
                    && r.json().path("blocks").isArray() && r.signatureValid());

            assertThat(teams.delivered()).extracting(r -> r.json().path("attachments").get(0).path("content")
                    .path("body").get(0).path("text").asText())
                    .containsExactly("Reboot of vm-under-test started", "Reboot of vm-under-test completed");
            assertThat(teams.delivered()).allMatch(r -> r.json().path("type").asText().equals("message"));
        }
    }
}
