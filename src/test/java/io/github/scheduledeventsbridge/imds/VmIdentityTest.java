package io.github.scheduledeventsbridge.imds;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VmIdentityTest {

    private final PollBackoffTest.MutableClock clock = new PollBackoffTest.MutableClock(Instant.parse("2026-11-20T10:15:00Z"));
    private final VmIdentity identity = new VmIdentity(clock);

    private static final String COMPUTE = """
            {"name": "WestNO_0", "vmId": "5c8f3b7e-4d2a-4b7c-9a1e-0f6d2c3b4a59", "location": "norwaywest",
             "resourceId": "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/WestNO_0",
             "osType": "Linux"}""";

    @Test
    @DisplayName("unknown until IMDS answered")
    void unknownAtFirst() {
        assertThat(identity.isKnown()).isFalse();
        assertThat(identity.vm()).isNull();
    }

    @Test
    @DisplayName("reads the body of /metadata/instance/compute")
    void computeBody() throws IOException {
        VmIdentity.Vm vm = identity.update(COMPUTE);

        assertThat(vm).isEqualTo(new VmIdentity.Vm("WestNO_0", "5c8f3b7e-4d2a-4b7c-9a1e-0f6d2c3b4a59",
                "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/WestNO_0",
                "norwaywest"));
        assertThat(identity.isKnown()).isTrue();
        assertThat(identity.vm()).isEqualTo(vm);
        assertThat(identity.shouldFetch()).as("known: never fetched again").isFalse();
    }

    @Test
    @DisplayName("reads the body of /metadata/instance, and tolerates missing optional fields")
    void instanceBody() throws IOException {
        VmIdentity.Vm vm = identity.update("{\"compute\": {\"name\": \"vmss_3\"}, \"network\": {}}");

        assertThat(vm).isEqualTo(new VmIdentity.Vm("vmss_3", null, null, null));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"{}", "{\"compute\": {}}", "{\"name\": \"\"}", "{\"name\": null}", "[]", "null"})
    @DisplayName("a body without compute.name is rejected and leaves the identity unknown")
    void noName(String body) {
        assertThatThrownBy(() -> identity.update(body)).isInstanceOf(InvalidDocumentException.class);
        assertThat(identity.isKnown()).isFalse();
    }

    @Test
    @DisplayName("an empty or non-JSON body fails and leaves the identity unknown")
    void notJson() {
        assertThatThrownBy(() -> identity.update("")).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> identity.update("<html>")).isInstanceOf(IOException.class);
        assertThat(identity.isKnown()).isFalse();
    }

    @Test
    @DisplayName("while unknown, a fetch is due at once and then every 30 seconds")
    void retryEvery30Seconds() {
        assertThat(identity.shouldFetch()).isTrue();
        identity.attempted();
        assertThat(identity.shouldFetch()).isFalse();
        clock.advance(Duration.ofSeconds(29));
        assertThat(identity.shouldFetch()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(identity.shouldFetch()).isTrue();
    }

    @TempDir
    Path stateDir;

    @Test
    @DisplayName("the identity IMDS gave is kept in the state dir and used by the next run until IMDS answers again")
    void lastKnownIdentitySurvivesARestart() throws IOException {
        VmIdentity first = new VmIdentity(clock, stateDir);
        assertThat(first.isKnown()).isFalse();
        assertThat(first.meanwhile()).isEqualTo("messages carry no vm block until it answers");
        first.update(COMPUTE);
        assertThat(stateDir.resolve("vm-identity.json")).isRegularFile();
        try (var files = Files.list(stateDir)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no temporary file left")
                    .containsExactly("vm-identity.json");
        }

        VmIdentity restarted = new VmIdentity(clock, stateDir);
        assertThat(restarted.vm()).isEqualTo(first.vm());
        assertThat(restarted.isKnown()).isTrue();
        assertThat(restarted.source()).isEqualTo("last-known");
        assertThat(restarted.shouldFetch()).as("IMDS is still asked").isTrue();
        assertThat(restarted.meanwhile()).as("the failed lookup's line tells what messages carry meanwhile")
                .isEqualTo("messages carry the last known identity (WestNO_0) until it answers");

        restarted.update(COMPUTE.replace("WestNO_0", "WestNO_9"));
        assertThat(restarted.source()).isEqualTo("imds");
        assertThat(restarted.shouldFetch()).isFalse();
        assertThat(new VmIdentity(clock, stateDir).vm().name()).as("a new name replaces the old").isEqualTo("WestNO_9");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"", "{", "{}", "{\"name\": \"\"}", "[]"})
    @DisplayName("an unreadable last known identity is ignored: unknown until IMDS answers")
    void unreadableLastKnownIdentity(String content) throws IOException {
        Files.writeString(stateDir.resolve("vm-identity.json"), content);
        VmIdentity identity = new VmIdentity(clock, stateDir);
        assertThat(identity.isKnown()).isFalse();
        identity.update(COMPUTE);
        assertThat(new VmIdentity(clock, stateDir).vm().name()).isEqualTo("WestNO_0");
    }

    @Test
    @DisplayName("a state dir that cannot be written keeps the identity in memory")
    void unwritableStateDir() throws IOException {
        Path notADirectory = Files.writeString(stateDir.resolve("file"), "x");
        VmIdentity identity = new VmIdentity(clock, notADirectory);
        identity.update(COMPUTE);
        assertThat(identity.vm().name()).isEqualTo("WestNO_0");
    }

    @Test
    @DisplayName("an unknown identity is said once per consequence, not once for all")
    void unknownIsSaidOncePerConsequence() {
        try (LogCapture log = LogCapture.install()) {
            identity.warnUnknown("actions do A");
            identity.warnUnknown("actions do A");
            identity.warnUnknown("approvals do B");
            assertThat(log.lines()).filteredOn(l -> l.contains("not known yet")).hasSize(2)
                    .anyMatch(l -> l.contains("actions do A")).anyMatch(l -> l.contains("approvals do B"));
        }
    }

    @Test
    @DisplayName("instance metadata unavailable: said once with its consequence, then a summary every 10 minutes")
    void unavailableIsSaidOnceThenSummedUp() throws IOException {
        try (LogCapture log = LogCapture.install()) {
            // 41 failed attempts, one every 30 s: 20 minutes.
            for (int attempt = 0; attempt < 41; attempt++) {
                identity.attempted();
                identity.unavailable(new java.net.ConnectException("Connection refused"));
                clock.advance(Duration.ofSeconds(30));
            }
            List<String> said = log.lines().stream().filter(l -> l.contains("instance metadata")).toList();
            assertThat(said).as(log.text()).hasSize(3);
            assertThat(said.get(0)).contains("unavailable (Connection refused); messages carry no vm block until it "
                    + "answers. Retried every 30 s; said again once every 10 min while it lasts");
            assertThat(said.get(1)).contains("still unavailable: 20 more failed attempts in the last 10 min, 21 since "
                    + "2026-11-20T10:15:00Z (the last: Connection refused)");
            assertThat(said.get(2)).contains("still unavailable: 20 more failed attempts in the last 10 min, 41 since");
            assertThat(said).noneMatch(l -> l.contains("not known yet"));

            identity.update(COMPUTE);
            assertThat(log.lines()).last().asString().contains("answered after 41 failed attempts since 2026-11-20T10:15:00Z");
        }
    }

    @Test
    void theHostNameHintIsTheFirstLabelInUpperCaseOfWhatThePlatformCallsThisMachine() throws Exception {
        assertThat(VmIdentity.hostName(Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(),
                Map.of("ComputerName", "westno_0.corp.example")))).as("Windows: COMPUTERNAME").isEqualTo("WESTNO_0");
        try (FileSystem unix = Jimfs.newFileSystem(Configuration.unix())) {
            Path kernel = unix.getPath("/proc/sys/kernel/hostname");
            Files.createDirectories(kernel.getParent());
            Files.writeString(kernel, "vm-7.internal.cloudapp.net\n");
            assertThat(VmIdentity.hostName(Platform.of(OperatingSystem.LINUX, unix, Map.of("COMPUTERNAME", "other"))))
                    .as("Linux: the kernel's").isEqualTo("VM-7");
        }
        assertThat(VmIdentity.hostName(Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(), Map.of()))).isNull();
        assertThat(identity.hostName()).isEqualTo(VmIdentity.hostName(Platform.current()));
    }
}
