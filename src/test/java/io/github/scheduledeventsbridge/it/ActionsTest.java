package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.testing.AcceptingActionSocket;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Actions on the VM (docs/actions-and-drain.md) over real sockets and real processes: prepare, recover, timeouts, approval after prepare. */
class ActionsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";
    private static final String MINE = "AAAAAAAA-0000-0000-0000-0000000000A1";
    private static final String MINE_TOO = "AAAAAAAA-0000-0000-0000-0000000000A2";
    private static final String OTHERS = "BBBBBBBB-0000-0000-0000-0000000000B1";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");
    @TempDir
    Path work;

    private String script(String name, String body) throws Exception {
        Path file = work.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        return "sh " + file;
    }

    private static List<String> lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void prepareOncePerEventWithEnvironmentAndInputThenRecoverAfterCompletedAndCancelled() throws Exception {
        String record = "echo run >> " + work + "/$1-$SEB_EVENT_ID.count; env | grep '^SEB_' | sort > " + work
                + "/$1-$SEB_EVENT_ID.env; cat > " + work + "/$1-$SEB_EVENT_ID.json; echo \"$1 line for $SEB_EVENT_ID\"";
        String prepare = script("prepare.sh", record.replace("$1", "prepare"));
        String recover = script("recover.sh", record.replace("$1", "recover"));
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test", "vm-other"),
                Docs.scheduled(MINE_TOO, "Freeze", NOT_BEFORE, "vm-under-test"),
                Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare)
                .with("bridge.action.recover.command", recover).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    webhook.transitionsOf(MINE).contains("ActionSucceeded")
                            && webhook.transitionsOf(MINE_TOO).contains("ActionSucceeded"));
            // MINE starts (no second prepare), MINE_TOO is withdrawn (Cancelled), then MINE completes.
            imds.serve(Docs.document(2, Docs.started(MINE, "Reboot", "vm-under-test", "vm-other"),
                    Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other")));
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("Started")
                    && webhook.transitionsOf(MINE_TOO).contains("Cancelled"));
            imds.serve(Docs.document(3, Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other")));
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    webhook.transitionsOf(MINE).stream().filter("ActionSucceeded"::equals).count() == 2
                            && webhook.transitionsOf(MINE_TOO).stream().filter("ActionSucceeded"::equals).count() == 2);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
        }
        assertThat(lines(work.resolve("prepare-" + MINE + ".count"))).hasSize(1);
        assertThat(lines(work.resolve("prepare-" + MINE_TOO + ".count"))).hasSize(1);
        assertThat(lines(work.resolve("recover-" + MINE + ".count"))).hasSize(1);
        assertThat(lines(work.resolve("recover-" + MINE_TOO + ".count"))).hasSize(1);
        assertThat(work.resolve("prepare-" + OTHERS + ".count")).as("not this VM's event").doesNotExist();

        Map<String, String> env = lines(work.resolve("prepare-" + MINE + ".env")).stream()
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1)));
        assertThat(env).containsEntry("SEB_TRANSITION", "Scheduled").containsEntry("SEB_EVENT_ID", MINE)
                .containsEntry("SEB_EVENT_TYPE", "Reboot").containsEntry("SEB_EVENT_STATUS", "Scheduled")
                .containsEntry("SEB_NOT_BEFORE", "2022-04-11T22:26:58Z")
                .containsEntry("SEB_RESOURCES", "vm-under-test,vm-other").containsEntry("SEB_DURATION_SECONDS", "5")
                .containsEntry("SEB_EVENT_SOURCE", "Platform").containsEntry("SEB_DESCRIPTION", "test event")
                .containsEntry("SEB_VM_NAME", "vm-under-test");
        JsonNode input = MAPPER.readTree(work.resolve("prepare-" + MINE + ".json").toFile());
        assertThat(input.path("type").asText()).isEqualTo("io.github.scheduledeventsbridge.transition.Scheduled");
        assertThat(input.path("data").path("eventId").asText()).isEqualTo(MINE);
        assertThat(lines(work.resolve("recover-" + MINE + ".env"))).contains("SEB_TRANSITION=Completed");
        assertThat(lines(work.resolve("recover-" + MINE_TOO + ".env"))).contains("SEB_TRANSITION=Cancelled");
    }

    @Test
    void outcomeMessagesCarryActionOutcomeExitCodeAndDuration() throws Exception {
        String prepare = script("prepare.sh", "echo preparing; exit 3");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
            MeterRegistry registry = a.context().getRegistry().findSingleByType(MeterRegistry.class);
            assertThat(Search.in(registry).name("bridge.actions").tag("action", "prepare").tag("outcome", "failed")
                    .timer().count()).isEqualTo(1);
            assertThat(Search.in(registry).name("bridge.vm.identity.known").gauge().value()).isEqualTo(1.0);
        }
        JsonNode failed = webhook.delivered().stream().filter(r -> r.transition().equals("ActionFailed"))
                .findFirst().orElseThrow().json();
        assertThat(failed.path("type").asText()).isEqualTo("io.github.scheduledeventsbridge.action.Failed");
        assertThat(failed.path("subject").asText()).isEqualTo(MINE);
        assertThat(failed.path("data").path("action").asText()).isEqualTo("prepare");
        assertThat(failed.path("data").path("outcome").asText()).isEqualTo("failed");
        assertThat(failed.path("data").path("exitCode").asInt()).isEqualTo(3);
        assertThat(failed.path("data").path("durationMs").isNumber()).isTrue();
        assertThat(failed.path("data").path("trigger").asText()).isEqualTo("Scheduled");
    }

    @Test
    void whileThisVmIsUnknownEveryEventCountsAndLeaderOnlyApprovalSaysWhyNothingIsApproved() throws Exception {
        String prepare = script("prepare.sh", "echo run >> " + work + "/prepare-$SEB_EVENT_ID.count");
        String recover = script("recover.sh", "echo run >> " + work + "/recover-$SEB_EVENT_ID.count");
        List<String> more = List.of("BBBBBBBB-0000-0000-0000-0000000000B2", "BBBBBBBB-0000-0000-0000-0000000000B3");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(1, Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other")));
            try (InProcessAgent a = fixture.builder()
                    .with("bridge.imds.instance-url", "http://127.0.0.1:9/metadata/instance/compute")
                    .with("bridge.action.prepare.command", prepare)
                    .with("bridge.action.recover.command", recover)
                    .with("bridge.approval.auto.after-prepare", "true").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(OTHERS).contains("ActionSucceeded"));
                // More events, and their ends: each runs its prepare and its recover, none says the same again.
                imds.serve(Docs.document(2, Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other"),
                        Docs.scheduled(more.get(0), "Freeze", NOT_BEFORE, "vm-other"),
                        Docs.scheduled(more.get(1), "Redeploy", NOT_BEFORE, "vm-other")));
                await().atMost(Duration.ofSeconds(20)).until(() -> more.stream()
                        .allMatch(id -> webhook.transitionsOf(id).contains("ActionSucceeded")));
                imds.serve(Docs.document(3));
                await().atMost(Duration.ofSeconds(20)).until(() -> Stream.concat(Stream.of(OTHERS), more.stream())
                        .allMatch(id -> Files.exists(work.resolve("recover-" + id + ".count"))));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
                // "full": the default exposure level lists only checks that are DOWN.
                var identity = HealthCheckHelper.invoke(a.context(), c -> Map.of(HealthCheck.CHECK_KIND,
                                HealthCheck.Kind.READINESS), c -> !c.isReadiness(), "full").stream()
                        .filter(r -> r.getCheck().getId().equals("vm-identity")).findFirst().orElseThrow();
                assertThat(identity.getState()).isEqualTo(HealthCheck.State.UP);
                assertThat(identity.getDetails()).containsEntry("known", false);
                MeterRegistry registry = a.context().getRegistry().findSingleByType(MeterRegistry.class);
                assertThat(Search.in(registry).name("bridge.vm.identity.known").gauge().value()).isZero();
            }
            assertThat(lines(work.resolve("prepare-" + OTHERS + ".count"))).hasSize(1);
            assertThat(imds.startRequests()).isEmpty();
            // Once per consequence, whatever the number of events: the commands that ran anyway, and the approvals
            // withheld after them.
            assertThat(log.lines()).as(log.text()).filteredOn(l -> l.contains("IMDS name is not known yet")).hasSize(2)
                    .anyMatch(l -> l.contains("prepare and recover commands run for every event"))
                    .anyMatch(l -> l.contains("no event is approved after its prepare"));
        }
    }

    @Test
    void aCommandThatHadExitedBeforeTheAgentWasKilledIsNotSaidToHaveBeenStillRunning() throws Exception {
        // The prepare had exited, the agent was killed before it wrote so down, and the exited command is not reaped
        // yet (a zombie: its new parent, PID 1 of some containers, reaps late). Here: a parent that never reaps.
        Process parent = new ProcessBuilder("bash", "-c", "sleep 0.5 & echo $!; exec sleep 300").start();
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        try (LogCapture log = LogCapture.install()) {
            long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(
                    parent.getInputStream(), StandardCharsets.US_ASCII)).readLine().trim());
            Path stat = Path.of("/proc", Long.toString(zombie), "stat");
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(stat).contains(") Z "));
            String[] fields = Files.readString(stat).substring(Files.readString(stat).lastIndexOf(')') + 2).split(" ");
            long millis = ProcessHandle.of(zombie).orElseThrow().info().startInstant().orElseThrow().toEpochMilli();
            ObjectNode started = MAPPER.createObjectNode().put("op", "started").put("id", "prepare|" + MINE)
                    .put("pid", zombie).put("since", millis).put("pidStartMillis", millis)
                    .put("pidStartTicks", Long.parseLong(fields[19]))
                    .put("bootId", Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim())
                    .put("pidNamespace", Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
            ObjectNode request = MAPPER.createObjectNode().put("op", "request").put("id", "prepare|" + MINE)
                    .put("action", "prepare").put("eventKey", MINE);
            ObjectNode input = request.putObject("input").put("specversion", "1.0").put("id", "test-input")
                    .put("source", "/scheduled-events-bridge/test").put("type", "io.github.scheduledeventsbridge.Scheduled")
                    .put("subject", MINE);
            input.putObject("data").put("eventId", MINE).put("transition", "Scheduled").put("eventType", "Reboot");
            Files.write(fixture.state().resolve("actions.log"), List.of("{\"generation\":0}", request.toString(),
                    started.toString()));

            imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent a = fixture.builder()
                    .with("bridge.action.prepare.command", script("prepare.sh", "echo run >> " + work + "/prepare.count"))
                    .start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> lines(work.resolve("prepare.count")).size() == 1);
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
            }
            assertThat(lines(work.resolve("prepare.count"))).as("run again: its outcome was never written").hasSize(1);
            assertThat(log.lines()).as(log.text()).noneMatch(l -> l.contains("was still running"))
                    .anyMatch(l -> l.contains("was interrupted (agent stopped while it ran): running it again"));
        } finally {
            parent.destroyForcibly();
        }
    }

    @Test
    void sinksFilterOutcomeMessagesLikeTransitions() throws Exception {
        String prepare = script("prepare.sh", "[ \"$SEB_EVENT_ID\" = " + MINE + " ] && exit 1; exit 0");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test"),
                Docs.scheduled(MINE_TOO, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare)
                .with("bridge.webhook.filter.transitions", "ActionFailed").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
            MeterRegistry registry = a.context().getRegistry().findSingleByType(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> Search.in(registry).name("bridge.actions").timers()
                    .stream().mapToLong(io.micrometer.core.instrument.Timer::count).sum() == 2);
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
        }
        assertThat(webhook.delivered()).extracting(WebhookReceiver.Request::transition).containsExactly("ActionFailed");
    }

    @Test
    void aCommandPastTheTimeoutIsKilledWithItsChildren() throws Exception {
        Path pid = work.resolve("child.pid");
        String prepare = script("prepare.sh", "sleep 300 & echo $! > " + pid + "; wait");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare)
                .with("bridge.action.timeout", "1500").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
        }
        long child = Long.parseLong(Files.readString(pid).trim());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
        assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false)).as("child sleep killed").isFalse();
        JsonNode failed = webhook.delivered().stream().filter(r -> r.transition().equals("ActionFailed"))
                .findFirst().orElseThrow().json();
        assertThat(failed.path("data").path("outcome").asText()).isEqualTo("timed-out");
        assertThat(failed.path("data").path("exitCode").isNull()).isTrue();
    }

    @Test
    void aSuccessfulPrepareApprovesOnlyAnEventOfThisVmAloneAndSaysWhyNotTheOthers() throws Exception {
        String prepare = script("prepare.sh", "exit 0");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        try (LogCapture log = LogCapture.install()) {
            imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test"),
                    Docs.scheduled(MINE_TOO, "Reboot", NOT_BEFORE, "vm-under-test", "vm-other"),
                    Docs.scheduled(OTHERS, "Reboot", NOT_BEFORE, "vm-other", "vm-under-test")));
            try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare)
                    .with("bridge.approval.auto.after-prepare", "true").start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("Approved"));
                await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE_TOO).contains("ActionSucceeded")
                        && webhook.transitionsOf(OTHERS).contains("ActionSucceeded"));
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
                MeterRegistry registry = a.context().getRegistry().findSingleByType(MeterRegistry.class);
                assertThat(Search.in(registry).name("bridge.action.approvals").tag("outcome", "withheld-other-vms")
                        .counter().count()).isEqualTo(2);
                assertThat(Search.in(registry).name("bridge.action.approvals").tag("outcome", "approved-after-prepare")
                        .counter().count()).isEqualTo(1);
            }
            assertThat(imds.startRequests()).as("one approval releases every VM listed: only this VM's own event")
                    .hasSize(1);
            assertThat(imds.startRequests().get(0).body()).isEqualTo("{\"StartRequests\":[{\"EventId\":\"" + MINE + "\"}]}");
            JsonNode approved = webhook.delivered().stream().filter(r -> r.transition().equals("Approved"))
                    .findFirst().orElseThrow().json();
            assertThat(approved.path("data").path("approval").path("rule").asText()).isEqualTo("after-prepare");
            assertThat(webhook.transitionsOf(MINE)).containsExactly("Scheduled", "ActionSucceeded", "Approved");
            for (String shared : List.of(MINE_TOO, OTHERS)) {
                assertThat(log.lines().stream().filter(l -> l.contains("Prepare of " + shared + " succeeded; not approved: "
                        + "its Resources also name [vm-other]")).count()).as(log.text()).isEqualTo(1);
            }
        }
    }

    @Test
    void aFailedPrepareNeverApproves() throws Exception {
        String prepare = script("prepare.sh", "exit 1");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare)
                .with("bridge.approval.auto.after-prepare", "true").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
            int served = imds.documentsServed();
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= served + 5);
        }
        assertThat(imds.startRequests()).isEmpty();
        JsonNode failed = webhook.delivered().stream().filter(r -> r.transition().equals("ActionFailed"))
                .findFirst().orElseThrow().json();
        assertThat(failed.path("data").path("approval").asText()).isEqualTo("withheld");
        assertThat(webhook.transitionsOf(MINE)).doesNotContain("Approved");
    }

    @Test
    void aLongPrepareDelaysNeitherPollingNorOtherDeliveries() throws Exception {
        String prepare = script("prepare.sh", "[ \"$SEB_EVENT_ID\" = " + MINE + " ] && sleep 60; exit 0");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.prepare.command", prepare).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("Scheduled"));
            long since = System.nanoTime();
            imds.serve(Docs.document(2, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test"),
                    Docs.scheduled(MINE_TOO, "Freeze", NOT_BEFORE, "vm-under-test")));
            // Well before the other event's 60 s prepare ends: not queued behind it.
            await().atMost(Duration.ofSeconds(45)).until(() -> webhook.transitionsOf(MINE_TOO).contains("Scheduled")
                    && webhook.transitionsOf(MINE_TOO).contains("ActionSucceeded"));
            assertThat(Duration.ofNanos(System.nanoTime() - since)).isLessThan(Duration.ofSeconds(45));
            assertThat(webhook.transitionsOf(MINE)).as("still preparing").doesNotContain("ActionSucceeded");
        }
    }
    @Test
    void theConfiguredShellRunsTheCommands() throws Exception {
        Path ran = work.resolve("ran");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        // [[ ]] and $BASH_VERSION are bash's: /bin/sh (dash) would fail this command.
        try (InProcessAgent a = fixture.builder().with("bridge.action.shell", "/bin/bash -c")
                .with("bridge.action.prepare.command", "[[ -n $BASH_VERSION ]] && echo bash > " + ran).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionSucceeded"));
        }
        assertThat(lines(ran)).containsExactly("bash");
    }

    @Test
    void aCommandThatCannotBeStartedIsAnActionFailedWithItsReason() throws Exception {
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
        try (InProcessAgent a = fixture.builder().with("bridge.action.shell", "no-such-shell -c")
                .with("bridge.action.prepare.command", "true").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
        }
        JsonNode failed = webhook.delivered().stream().filter(r -> r.transition().equals("ActionFailed"))
                .findFirst().orElseThrow().json();
        assertThat(failed.path("data").path("outcome").asText()).isEqualTo("failed");
        assertThat(failed.path("data").path("exitCode").isNull()).isTrue();
        assertThat(failed.path("data").path("error").asText())
                .isEqualTo("cannot be started: no-such-shell is not an executable file on the PATH");
    }

    @Test
    void commandsHandedToAnActionHostRunThereWithoutTheAgentsEnvironmentAndReportAsUsual() throws Exception {
        Path env = work.resolve("env");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        try (AcceptingActionSocket host = AcceptingActionSocket.listen(work.resolve("action.sock"), Map.of("BRIDGE_WEBHOOK_SECRET", "the-agents-secret"))) {
            imds.serve(Docs.document(1, Docs.scheduled(MINE, "Reboot", NOT_BEFORE, "vm-under-test")));
            try (InProcessAgent a = fixture.builder().with("bridge.action.host-socket", host.path().toString())
                    .with("bridge.action.prepare.command", "env > " + env + "; echo prepared; exit 4").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> webhook.transitionsOf(MINE).contains("ActionFailed"));
            }
            assertThat(host.hosts()).hasSize(1);
            assertThat(lines(env)).contains("SEB_EVENT_ID=" + MINE, "SEB_TRANSITION=Scheduled")
                    .noneMatch(l -> l.startsWith("BRIDGE_") || l.contains("the-agents-secret"));
            JsonNode failed = webhook.delivered().stream().filter(r -> r.transition().equals("ActionFailed"))
                    .findFirst().orElseThrow().json();
            assertThat(failed.path("data").path("exitCode").asInt()).isEqualTo(4);
        }
    }
}
