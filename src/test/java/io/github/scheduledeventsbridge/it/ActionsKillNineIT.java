package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AcceptingActionSocket;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.PidReuse;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Actions on the VM (docs/actions-and-drain.md) across SIGKILL of the packaged agent: an action interrupted by the kill runs again, a finished one
 * never does (state/actions.json).
 */
class ActionsKillNineIT {

    private static final String EVENT = "AAAAAAAA-9999-9999-9999-999999999999";
    private static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";

    @TempDir
    Path work;

    private AgentProcess agent(ScriptedImds imds, WebhookReceiver webhook) throws IOException {
        return agent(imds, webhook, "echo run >> " + work + "/recover.runs");
    }

    private AgentProcess agent(ScriptedImds imds, WebhookReceiver webhook, String recover) throws IOException {
        String prepare = "echo $$ > " + work + "/prepare.pid; echo start >> " + work + "/prepare.starts; "
                + "while [ -e " + work + "/block ]; do sleep 0.1; done; echo done >> " + work + "/prepare.done";
        return agent(imds, webhook, Map.of("BRIDGE_ACTION_PREPARE_COMMAND", prepare,
                "BRIDGE_ACTION_RECOVER_COMMAND", recover));
    }

    private AgentProcess agent(ScriptedImds imds, WebhookReceiver webhook, Map<String, String> actions)
            throws IOException {
        Map<String, String> env = AgentProcess.env(
                "BRIDGE_IMDS_URL", imds.url(),
                "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                "BRIDGE_IMDS_POLL_INTERVAL", "200",
                "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_WEBHOOK_URLS", webhook.url(),
                "BRIDGE_WEBHOOK_SECRET", "kill-secret");
        env.putAll(actions);
        return AgentProcess.start("actions-kill-nine", env, Map.of(), work);
    }

    /**
     * Starts an agent, kills it with -9 once its prepare command started, and ends the command too: it lives on in
     * its own session after the agent's death, but this VM "rebooted".
     */
    private void killWhilePrepareRuns(ScriptedImds imds, WebhookReceiver webhook) throws Exception {
        AgentProcess agent = agent(imds, webhook);
        await().atMost(Duration.ofSeconds(60)).until(() -> lines("prepare.starts").size() == 1);
        agent.kill9();
        long orphan = Long.parseLong(lines("prepare.pid").get(0).trim());
        ProcessHandle.of(orphan).ifPresent(ProcessHandle::destroyForcibly);
        await().atMost(Duration.ofSeconds(60)).until(() -> ProcessHandle.of(orphan).map(p -> !p.isAlive()).orElse(true));
    }

    private List<String> lines(String name) throws IOException {
        Path file = work.resolve(name);
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void anInterruptedPrepareRunsAgainAndAFinishedOneNever() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            Files.createFile(work.resolve("block"));

            // 1. Killed while the prepare command runs.
            killWhilePrepareRuns(imds, webhook);
            assertThat(lines("prepare.done")).isEmpty();
            Files.delete(work.resolve("block"));

            // 2. Restarted: the interrupted prepare runs again and finishes; then killed once more.
            AgentProcess second = agent(imds, webhook);
            await().atMost(Duration.ofSeconds(60)).until(() -> webhook.transitionsOf(EVENT).contains("ActionSucceeded"));
            second.kill9();
            assertThat(lines("prepare.starts")).hasSize(2);
            assertThat(lines("prepare.done")).hasSize(1);

            // 3. Restarted again: the finished prepare is not run a third time; the end of the event recovers once.
            try (AgentProcess third = agent(imds, webhook)) {
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
                imds.serve(Docs.document(2));
                await().atMost(Duration.ofSeconds(30)).until(() -> lines("recover.runs").size() == 1);
                int later = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= later + 5);
            }
            assertThat(lines("prepare.starts")).hasSize(2);
            assertThat(lines("prepare.done")).hasSize(1);
            assertThat(lines("recover.runs")).hasSize(1);
            assertThat(webhook.transitionsOf(EVENT)).containsSubsequence("Scheduled", "ActionSucceeded", "Cancelled");
        }
    }

    @Test
    void aPrepareInterruptedByTheMaintenanceItselfIsNotRunAgainOnceTheEventEnded() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            Files.createFile(work.resolve("block"));

            // The reboot stops the agent while its prepare runs...
            killWhilePrepareRuns(imds, webhook);
            Files.delete(work.resolve("block"));

            // ...and after it the event is gone: recover runs once, the interrupted prepare never again.
            imds.serve(Docs.document(2));
            try (AgentProcess second = agent(imds, webhook)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines("recover.runs").size() == 1);
                int served = imds.documentsServed();
                await().atMost(Duration.ofSeconds(60)).until(() -> imds.documentsServed() >= served + 5);
                assertThat(second.output()).contains("was interrupted and the event has ended since: not run again");
            }
            assertThat(lines("prepare.starts")).hasSize(1);
            assertThat(lines("recover.runs")).hasSize(1);
        }
    }
    @Test
    void aRestartNeverKillsAStrangerThatGotThePidOfTheCommandTheKilledAgentLeftBehind() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            Files.createFile(work.resolve("block"));
            // The agent and its command die together (a reboot, a container started again)...
            killWhilePrepareRuns(imds, webhook);
            long old = Long.parseLong(lines("prepare.pid").get(0).trim());
            Files.delete(work.resolve("block"));
            // ...and another process gets the command's pid, in a process group of its own, started after it.
            ProcessHandle stranger = PidReuse.strangerAs(old);
            try (AgentProcess second = agent(imds, webhook)) {
                // The leftover is looked for first, in the event's lane; then the prepare runs again.
                await().atMost(Duration.ofSeconds(60)).until(() -> lines("prepare.done").size() == 1);
                assertThat(stranger.isAlive()).as("the stranger running as pid %d", old).isTrue();
                assertThat(PidReuse.processGroup(old)).isEqualTo(old);
                assertThat(second.output()).doesNotContain("was still running from before the agent restarted");
            } finally {
                stranger.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(work.resolve("block"));
        }
    }

    @Test
    void aRecoverAfterARestartWaitsUntilThePrepareTheKilledAgentLeftRunningIsEnded() throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            Files.createFile(work.resolve("block"));
            AgentProcess first = agent(imds, webhook, "if kill -0 $(cat " + work + "/prepare.pid) 2>/dev/null; "
                    + "then echo 'prepare still running' >> " + work + "/recover.runs; "
                    + "else echo 'prepare ended' >> " + work + "/recover.runs; fi");
            await().atMost(Duration.ofSeconds(60)).until(() -> lines("prepare.starts").size() == 1);
            first.kill9();
            long orphan = Long.parseLong(lines("prepare.pid").get(0).trim());
            assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive)).as("the prepare outlives kill -9")
                    .contains(true);

            // The event is cancelled while the agent is down; the old prepare is still running.
            imds.serve(Docs.document(2));
            try (AgentProcess second = agent(imds, webhook, "if kill -0 $(cat " + work + "/prepare.pid) 2>/dev/null; "
                    + "then echo 'prepare still running' >> " + work + "/recover.runs; "
                    + "else echo 'prepare ended' >> " + work + "/recover.runs; fi")) {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines("recover.runs").size() == 1);
                assertThat(lines("recover.runs")).containsExactly("prepare ended");
                assertThat(second.output()).contains("was still running from before the agent restarted");
            }
            assertThat(lines("prepare.starts")).as("the event ended: not prepared again").hasSize(1);
            assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        } finally {
            Files.deleteIfExists(work.resolve("block"));
        }
    }

    @Test
    void aPrepareWhosePidWasNotYetWrittenDownIsStillFoundAndEndedBeforeTheRecover() throws Exception {
        String recover = "if kill -0 $(cat " + work + "/prepare.pid) 2>/dev/null; "
                + "then echo 'prepare still running' >> " + work + "/recover.runs; "
                + "else echo 'prepare ended' >> " + work + "/recover.runs; fi";
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret")) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            Files.createFile(work.resolve("block"));
            AgentProcess first = agent(imds, webhook, recover);
            await().atMost(Duration.ofSeconds(60)).until(() -> lines("prepare.starts").size() == 1);
            first.kill9();
            long orphan = Long.parseLong(lines("prepare.pid").get(0).trim());
            // The kill came between the command's start and the forced write of its pid (a window the command's
            // first line often falls in): the log has no "started" step, whether or not the agent got to write it.
            Path log = work.resolve("state").resolve("actions.log");
            Files.write(log, Files.readAllLines(log).stream().filter(step -> !step.contains("\"op\":\"started\"")).toList());

            imds.serve(Docs.document(2));
            try (AgentProcess second = agent(imds, webhook, recover)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines("recover.runs").size() == 1);
                assertThat(lines("recover.runs")).containsExactly("prepare ended");
                assertThat(second.output()).containsPattern("was still running from before the agent restarted \\(pid [0-9, ]*\\b"
                        + orphan + "\\b");
            }
            assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        } finally {
            Files.deleteIfExists(work.resolve("block"));
        }
    }

    @Test
    void whenTheAgentIsKilledTheActionHostEndsItsCommand() throws Exception {
        Path pid = work.resolve("command.pid");
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("kill-secret");
             AcceptingActionSocket hostSocket = AcceptingActionSocket.listen(work.resolve("action.sock"), Map.of())) {
            imds.serve(Docs.document(1, Docs.scheduled(EVENT, "Reboot", NOT_BEFORE, "vm-under-test")));
            AgentProcess agent = agent(imds, webhook, Map.of("BRIDGE_ACTION_HOST_SOCKET", hostSocket.path().toString(),
                    "BRIDGE_ACTION_PREPARE_COMMAND", "echo $$ > " + pid + "; sleep 300"));
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pid) && Files.size(pid) > 0);
            long command = Long.parseLong(Files.readString(pid).trim());

            agent.kill9();

            Process host = hostSocket.hosts().get(0);
            assertThat(host.waitFor(60, TimeUnit.SECONDS)).as("the host exits").isTrue();
            assertThat(host.exitValue()).isEqualTo(3);
            await().atMost(Duration.ofSeconds(60)).until(() -> ProcessHandle.of(command).map(p -> !p.isAlive()).orElse(true));
        }
    }
}
