package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.imds.ImdsDocumentParser;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.ResourceFilter;
import io.github.scheduledeventsbridge.transitions.TransitionDetector;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Webhook delivery under outages, isolation between targets, volume, and restarts. */
class WebhookDeliveryTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static String id(int i) {
        return String.format("00000000-0000-0000-0000-%012d", i);
    }

    private static String[] events(int count, boolean started) {
        return IntStream.range(0, count).mapToObj(i -> started
                ? Docs.started(id(i), "Reboot", "vm-" + i)
                : Docs.scheduled(id(i), "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-" + i)).toArray(String[]::new);
    }

    /** What kill -9 right after the atomic record leaves behind: the document and an unspooled outbox. */
    private void recordedButNotSpooled(String doc) throws Exception {
        Clock clock = Clock.systemUTC();
        VmIdentity identity = new VmIdentity(clock);
        new TransitionJournal(fixture.state(), new TransitionDetector(), new CloudEventFactory(clock, identity),
                new ResourceFilter(ResourceFilter.Mode.ALL, identity), clock).record(new ImdsDocumentParser().parse(doc));
    }

    @Test
    void fortyTransitionsDuringAnOutageAreAllDeliveredAfterItWithStableIds() throws Exception {
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            webhook.answerWith(503);
            fixture.imds().serve(Docs.document(2, events(20, false)));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.failedAttempts().size() >= 2);
                fixture.imds().serve(Docs.document(3, events(20, true)));
                Spool spool = agent.bean("spool", Spool.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> spool.depths().values().stream()
                        .mapToLong(java.util.concurrent.atomic.AtomicLong::get).sum() == 40);
                assertThat(webhook.delivered()).isEmpty();

                webhook.answerWith(200);
                await().atMost(Duration.ofSeconds(30)).until(() -> webhook.delivered().size() == 40);

                List<WebhookReceiver.Request> delivered = webhook.delivered();
                assertThat(delivered).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates();
                for (int i = 0; i < 20; i++) {
                    assertThat(webhook.transitionsOf(id(i))).containsExactly("Scheduled", "Started");
                }
                Set<String> deliveredIds = delivered.stream().map(WebhookReceiver.Request::id).collect(Collectors.toSet());
                assertThat(webhook.failedAttempts()).extracting(WebhookReceiver.Request::id)
                        .as("every retry carried an id that was finally delivered").allMatch(deliveredIds::contains);
                assertThat(webhook.failedAttempts()).extracting(WebhookReceiver.Request::transition)
                        .as("each lane retried its first message, a Scheduled, before anything behind it")
                        .containsOnly("Scheduled");
                await().atMost(Duration.ofSeconds(5)).until(() -> spool.depths().values().stream()
                        .mapToLong(java.util.concurrent.atomic.AtomicLong::get).sum() == 0);
            }
        }
    }

    @Test
    void aFailingAndAnUnreachableTargetNeverDelayAHealthyOne() throws Exception {
        int closedPort = FreePorts.unused();
        try (WebhookReceiver failing = WebhookReceiver.start("s"); WebhookReceiver healthy = WebhookReceiver.start("s")) {
            failing.answerWith(500);
            fixture.imds().serve(Docs.document(2, events(3, false)));
            try (InProcessAgent agent = fixture.postingTo(failing.url(), "http://127.0.0.1:" + closedPort + "/down", healthy.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> healthy.delivered().size() == 3);
                fixture.imds().serve(Docs.document(3, events(3, true)));
                await().atMost(Duration.ofSeconds(20)).until(() -> healthy.delivered().size() == 6);
                assertThat(failing.delivered()).isEmpty();
                // Lanes are independent threads: the failing one's first attempt may still be on its way.
                await().atMost(Duration.ofSeconds(10)).until(() -> !failing.failedAttempts().isEmpty());
                assertThat(failing.failedAttempts()).extracting(WebhookReceiver.Request::transition)
                        .as("the failing target keeps retrying its first message, in order").containsOnly("Scheduled");

                failing.answerWith(200);
                await().atMost(Duration.ofSeconds(30)).until(() -> failing.delivered().size() == 6);
                assertThat(failing.delivered()).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(healthy.delivered().stream().map(WebhookReceiver.Request::id).toList());
                for (int i = 0; i < 3; i++) {
                    assertThat(failing.transitionsOf(id(i))).containsExactly("Scheduled", "Started");
                    assertThat(healthy.transitionsOf(id(i))).containsExactly("Scheduled", "Started");
                }
            }
        }
    }

    @Test
    void aThousandEventDocumentIsDeliveredCompletely() throws Exception {
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(2, events(1000, false)));
            try (InProcessAgent agent = fixture.postingTo(webhook.url()).start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() >= 1000);
                assertThat(webhook.delivered()).hasSize(1000);
                assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId)
                        .doesNotHaveDuplicates()
                        .allMatch(id -> id.startsWith("00000000-0000-0000-0000-"));
            }
        }
    }

    @Test
    void anOutboxLeftByACrashBetweenRecordingAndSpoolingIsDeliveredOnce() throws Exception {
        String a = "AAAAAAAA-0000-0000-0000-00000000000A";
        String doc = Docs.document(2, Docs.scheduled(a, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-a"));
        recordedButNotSpooled(doc);
        fixture.imds().serve(doc);
        try (WebhookReceiver webhook = WebhookReceiver.start("s"); InProcessAgent agent = fixture.postingTo(webhook.url()).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 1);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
            assertThat(webhook.transitionsOf(a)).containsExactly("Scheduled");
        }
    }

    @Test
    void aLargeOutboxLeftByACrashGoesThroughDispatchAndIsDeliveredOnceEach() throws Exception {
        // Enough transitions for one spool document: the start-up replay hands its messages to the lane, and the
        // dispatch of the outbox must not queue them a second time.
        String doc = Docs.document(2, events(12, false));
        recordedButNotSpooled(doc);
        fixture.imds().serve(doc);
        try (WebhookReceiver webhook = WebhookReceiver.start("s"); InProcessAgent agent = fixture.postingTo(webhook.url()).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() >= 12);
            int served = fixture.imds().documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
            assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::eventId)
                    .containsExactlyInAnyOrder(IntStream.range(0, 12).mapToObj(WebhookDeliveryTest::id).toArray(String[]::new));
        }
    }

    @Test
    void aRestartRepeatsNothingAndReportsWhatChangedWhileDown() throws Exception {
        String a = "AAAAAAAA-0000-0000-0000-000000000001";
        String b = "BBBBBBBB-0000-0000-0000-000000000002";
        String c = "CCCCCCCC-0000-0000-0000-000000000003";
        try (WebhookReceiver webhook = WebhookReceiver.start("s")) {
            fixture.imds().serve(Docs.document(2,
                    Docs.scheduled(a, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-a"),
                    Docs.scheduled(b, "Redeploy", "Mon, 11 Apr 2022 22:26:58 GMT", "vm-a")));
            try (InProcessAgent first = fixture.postingTo(webhook.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() == 2);
            }
            // While the agent is down: A starts, B is withdrawn, C (hardware failure) appears started.
            fixture.imds().serve(Docs.document(5, Docs.started(a, "Reboot", "vm-a"), Docs.started(c, "Reboot", "vm-a")));
            try (InProcessAgent second = fixture.postingTo(webhook.url()).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.delivered().size() >= 5);
                int served = fixture.imds().documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> fixture.imds().documentsServed() >= served + 3);
            }
            assertThat(webhook.delivered()).hasSize(5);
            assertThat(webhook.transitionsOf(a)).containsExactly("Scheduled", "Started");
            assertThat(webhook.transitionsOf(b)).containsExactly("Scheduled", "Cancelled");
            assertThat(webhook.transitionsOf(c)).containsExactly("Started");
        }
    }
}
