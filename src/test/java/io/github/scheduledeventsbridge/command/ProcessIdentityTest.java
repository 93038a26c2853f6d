package io.github.scheduledeventsbridge.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Real processes on this Linux machine: what proves that the process holding a pid is the one written down. */
class ProcessIdentityTest {

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void end() {
        started.forEach(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        });
    }

    private Process start(String script) throws Exception {
        Process process = new ProcessBuilder("bash", "-c", script).start();
        started.add(process);
        return process;
    }

    @Test
    void aRunningProcessIsProvedByItsStartTickBootAndPidNamespace() throws Exception {
        Process process = start("exec sleep 300");
        ProcessIdentity identity = ProcessIdentity.of(process.pid(), 0);

        assertThat(identity.startTicks()).isNotNull();
        assertThat(identity.bootId()).matches("[0-9a-f-]{36}");
        assertThat(identity.pidNamespace()).startsWith("pid:[");
        assertThat(identity.live()).get().extracting(ProcessHandle::pid).isEqualTo(process.pid());

        ObjectNode written = new ObjectMapper().createObjectNode();
        identity.writeTo(written);
        assertThat(ProcessIdentity.readFrom(written)).isEqualTo(identity);
    }

    @Test
    void theSamePidIsNotProofWithAnotherStartTickBootOrNamespaceOrWithoutThem() throws Exception {
        Process process = start("exec sleep 300");
        ProcessIdentity real = ProcessIdentity.of(process.pid(), 0);
        long pid = real.pid();

        assertThat(new ProcessIdentity(pid, real.startMillis(), real.startTicks() - 1, real.bootId(),
                real.pidNamespace()).live()).as("started one tick earlier: another process had the pid").isEmpty();
        assertThat(new ProcessIdentity(pid, real.startMillis(), real.startTicks(), "another-boot",
                real.pidNamespace()).live()).as("written down before a reboot").isEmpty();
        assertThat(new ProcessIdentity(pid, real.startMillis(), real.startTicks(), real.bootId(),
                "pid:[1]").live()).as("written down in another pid namespace (a container started again)").isEmpty();
        assertThat(new ProcessIdentity(pid, real.startMillis(), null, null, null).live())
                .as("written down by an older version (pid and milliseconds only): not proof").isEmpty();
        assertThat(ProcessIdentity.readFrom(new ObjectMapper().readTree("{\"pid\":" + pid + ",\"since\":"
                + real.startMillis() + "}")).live()).isEmpty();
    }

    @Test
    void aProvedProcessIsEndedOnlyWhenItsReadableEnvironmentCarriesTheRunTag() throws Exception {
        Process untagged = start("exec sleep 300");
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", "exec sleep 300");
        builder.environment().put("SEB_TEST_TAG", "tag-1");
        Process tagged = builder.start();
        started.add(tagged);

        assertThat(ProcessTree.killLeftover(ProcessIdentity.of(untagged.pid(), 0), "SEB_TEST_TAG", "tag-1"))
                .as("same pid, start tick, boot and namespace, but not the command's environment").isEmpty();
        assertThat(untagged.isAlive()).isTrue();
        assertThat(ProcessTree.killLeftover(ProcessIdentity.of(tagged.pid(), 0), "SEB_TEST_TAG", "tag-2")).isEmpty();
        assertThat(ProcessTree.killLeftover(ProcessIdentity.of(tagged.pid(), 0), "SEB_TEST_TAG", "tag-1")).isPresent();
        assertThat(tagged.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(untagged.isAlive()).isTrue();
    }

    @Test
    void aCommandThatHasExitedIsNotRunningEvenBeforeItIsReaped() throws Exception {
        // The child exits soon; its parent has turned into sleep by then, which never reaps it: a zombie, as after a kill -9
        // of an agent whose command had just ended, under a parent that reaps late (PID 1 of some containers).
        Process parent = start("sleep 0.5 & echo $!; exec sleep 300");
        long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream(),
                StandardCharsets.US_ASCII)).readLine().trim());
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessIdentity.Stat.read(zombie).exited());
        ProcessIdentity identity = ProcessIdentity.of(zombie, 0);

        assertThat(ProcessHandle.of(zombie)).as("the JDK still lists it").isPresent();
        assertThat(identity.startTicks()).isNotNull();
        assertThat(identity.live()).isEmpty();
        assertThat(ProcessTree.killLeftover(identity, "SEB_TEST_TAG", "x")).as("nothing to end, nothing to say").isEmpty();
        assertThat(ProcessIdentity.exited(zombie)).isTrue();
        assertThat(ProcessTree.awaitGone(ProcessHandle.of(zombie).orElseThrow(), Duration.ofSeconds(5))).isTrue();
    }
}
