package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged agent killed with SIGKILL at the worst moments. Configured through environment
 * variables only (BRIDGE_*), which is how the contract says every key can be set.
 */
class KillNineIT {

    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @TempDir
    Path work;
    private ScriptedImds imds;
    private WebhookReceiver webhook;

    @BeforeEach
    void peers() throws IOException {
        imds = new ScriptedImds();
        webhook = WebhookReceiver.start("kill-secret");
    }

    @AfterEach
    void stop() {
        imds.close();
        webhook.close();
    }

    private AgentProcess agent() throws IOException {
        return AgentProcess.start("kill-nine", AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(),
                "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200",
                "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_WEBHOOK_URLS", webhook.url(),
                "BRIDGE_WEBHOOK_SECRET", "kill-secret",
                "BRIDGE_DELIVERY_MAX_BACKOFF", "1000"), Map.of(), work);
    }

    private long spooled() throws IOException {
        Path spool = work.resolve("state").resolve("spool");
        if (!Files.exists(spool)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(spool)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{19}\\.jsonl?")).count();
        }
    }

    @Test
    void killedWhileSendingABigDocumentThenRestartedLosesNothing() throws Exception {
        // A document of 300 new events: one spool document (SpoolDocument), killed while its lanes send it.
        List<String> ids = java.util.stream.IntStream.range(0, 300)
                .mapToObj(i -> String.format("DDDDDDDD-0000-0000-0000-%012d", i)).toList();
        imds.serve(Docs.document(2, ids.stream().map(id -> Docs.scheduled(id, "Reboot", NOT_BEFORE, "vm-1"))
                .toArray(String[]::new)));
        // The receiver answers 20 and then holds its answers: the kill falls while lanes wait, however slow the machine.
        webhook.holdAfter(20);
        try (AgentProcess first = agent()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() == 20 && webhook.held() > 0);
            first.kill9();
        }
        webhook.release();
        assertThat(documents()).as("the rest waits in one spool document").hasSize(1);
        assertThat(webhook.delivered()).hasSize(20);

        // While it is dead, every event starts: each one's Started must follow its Scheduled.
        imds.serve(Docs.document(3, ids.stream().map(id -> Docs.started(id, "Reboot", "vm-1")).toArray(String[]::new)));
        Set<String> expected = new TreeSet<>();
        ids.forEach(id -> expected.addAll(List.of(id + "/Scheduled", id + "/Started")));
        try (AgentProcess second = agent()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered().containsAll(expected));
            await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0);
        }
        assertThat(delivered()).as("nothing lost, nothing invented").isEqualTo(expected);
        Map<String, Set<String>> idsPerTransition = webhook.delivered().stream().collect(Collectors.groupingBy(
                r -> r.eventId() + "/" + r.transition(), Collectors.mapping(WebhookReceiver.Request::id, Collectors.toSet())));
        assertThat(idsPerTransition.values()).as("replayed with the same ids").allMatch(set -> set.size() == 1);
        for (String id : ids) {
            assertThat(webhook.transitionsOf(id).stream().distinct().toList()).as(id).containsExactly("Scheduled", "Started");
        }
        assertThat(webhook.delivered()).allMatch(WebhookReceiver.Request::signatureValid);
    }

    private List<Path> documents() throws IOException {
        try (Stream<Path> files = Files.walk(work.resolve("state").resolve("spool"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsonl")).toList();
        }
    }

    @Test
    void killedWhileTheWebhookIsDownThenRestartedDeliversEachTransitionOnce() throws Exception {
        String a = "AAAAAAAA-1111-1111-1111-111111111111";
        String b = "BBBBBBBB-2222-2222-2222-222222222222";
        webhook.answerWith(503);
        // B's NotBefore is still ahead: withdrawn while the agent is dead, it can only have been cancelled.
        imds.serve(Docs.document(2, Docs.scheduled(a, "Reboot", NOT_BEFORE, "vm-1"),
                Docs.scheduled(b, "Freeze", "Mon, 11 Apr 2050 22:26:58 GMT", "vm-1")));

        AgentProcess first = agent();
        await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 2 && !webhook.failedAttempts().isEmpty());
        first.kill9();

        // While it is dead: A starts, B is withdrawn. The webhook comes back.
        imds.serve(Docs.document(3, Docs.started(a, "Reboot", "vm-1")));
        webhook.answerWith(200);

        try (AgentProcess second = agent()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.delivered().size() >= 4);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
            await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0);
        }
        assertThat(webhook.delivered()).hasSize(4);
        assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::id).doesNotHaveDuplicates();
        assertThat(webhook.transitionsOf(a)).containsExactly("Scheduled", "Started");
        assertThat(webhook.transitionsOf(b)).containsExactly("Scheduled", "Cancelled");
        assertThat(webhook.delivered()).allMatch(WebhookReceiver.Request::signatureValid);
    }

    @Test
    void killedAtRandomPointsInManyCyclesLosesNothing() throws Exception {
        Random random = new Random(42);
        Map<String, String> status = new HashMap<>();   // what IMDS currently lists
        Set<String> expected = new TreeSet<>();          // eventId/transition pairs that must arrive
        long incarnation = 1;
        int kills = 0;
        int killedBeforeRecording = 0;
        for (int change = 0; kills < 20; change++) {
            // One change of the document: a new event, and every other one started, completed or cancelled.
            String id = String.format("EEEEEEEE-0000-0000-0000-%012d", change);
            status.put(id, "Scheduled");
            expected.add(id + "/Scheduled");
            for (Map.Entry<String, String> e : new HashMap<>(status).entrySet()) {
                if (e.getKey().equals(id)) {
                    continue;
                }
                if (e.getValue().equals("Scheduled")) {
                    boolean cancel = random.nextBoolean();
                    if (cancel) {
                        status.remove(e.getKey());
                        expected.add(e.getKey() + "/Cancelled");
                    } else {
                        status.put(e.getKey(), "Started");
                        expected.add(e.getKey() + "/Started");
                    }
                } else {
                    status.remove(e.getKey());
                    expected.add(e.getKey() + "/Completed");
                }
            }
            imds.serve(document(++incarnation, status));
            // Kill at a random point after the agent fetched this document: before, while or after it records,
            // spools and delivers. The document only changes again once a run has recorded it, as IMDS keeps a
            // document until maintenance moves on: a change no run ever saw cannot be reported by anyone.
            do {
                // A webhook that answers late in some runs, so that some kills land mid-request.
                webhook.answerAfter(Duration.ofMillis(random.nextInt(3) == 0 ? random.nextInt(300) : 0));
                try (AgentProcess agent = agent()) {
                    int served = imds.documentsServed();
                    await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() > served);
                    // Often within the first milliseconds (recording and spooling), otherwise up to 400 ms later.
                    int delay = random.nextInt(3) == 0 ? random.nextInt(20) : random.nextInt(400);
                    await().pollDelay(Duration.ofMillis(delay)).until(() -> true);
                    agent.kill9();
                    kills++;
                }
                if (recordedIncarnation() < incarnation) {
                    killedBeforeRecording++;
                }
            } while (recordedIncarnation() < incarnation && kills < 40);
        }
        webhook.answerAfter(Duration.ZERO);
        try (AgentProcess last = agent()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered().containsAll(expected));
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
            await().atMost(Duration.ofSeconds(60)).until(() -> spooled() == 0);
        }
        assertThat(delivered()).as("nothing lost, nothing invented").isEqualTo(expected);
        // At-least-once: a kill between the 2xx and the spool deletion may repeat a message, never with a new id.
        Map<String, Set<String>> idsPerTransition = webhook.delivered().stream().collect(Collectors.groupingBy(
                r -> r.eventId() + "/" + r.transition(), Collectors.mapping(WebhookReceiver.Request::id, Collectors.toSet())));
        assertThat(idsPerTransition.values()).allMatch(ids -> ids.size() == 1);
        // Several messages are in flight at a time (bridge.webhook.concurrency), each event's never: whatever the
        // kills and the replays after them, each event's transitions first arrive in the order they happened.
        List<String> lifeCycle = List.of("Scheduled", "Started", "Cancelled", "Completed");
        for (String eventId : expected.stream().map(k -> k.substring(0, k.indexOf('/'))).collect(Collectors.toSet())) {
            List<String> firstArrivals = webhook.transitionsOf(eventId).stream().distinct().toList();
            assertThat(firstArrivals).as("transitions of " + eventId)
                    .isSortedAccordingTo(java.util.Comparator.comparingInt(lifeCycle::indexOf));
        }
        System.out.printf("KillNineIT: %d kills, %d before the document was recorded, %d transitions, %d deliveries%n",
                kills, killedBeforeRecording, expected.size(), webhook.delivered().size());
    }

    /** The incarnation of the last document the agent recorded durably (-1 before the first). */
    private long recordedIncarnation() throws IOException {
        Path state = work.resolve("state").resolve("state.json");
        if (!Files.exists(state)) {
            return -1;
        }
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(state.toFile())
                .path("document").path("DocumentIncarnation").asLong(-1);
    }

    private Set<String> delivered() {
        return webhook.delivered().stream().map(r -> r.eventId() + "/" + r.transition())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String document(long incarnation, Map<String, String> status) {
        List<String> events = status.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getValue().equals("Started") ? Docs.started(e.getKey(), "Reboot", "vm-1")
                        : Docs.scheduled(e.getKey(), "Reboot", NOT_BEFORE, "vm-1")).toList();
        return Docs.document(incarnation, events.toArray(String[]::new));
    }
}
