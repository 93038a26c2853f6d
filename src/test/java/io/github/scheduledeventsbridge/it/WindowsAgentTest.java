package io.github.scheduledeventsbridge.it;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.platform.BootTime;
import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FaultyFileSystem;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole agent as it runs on Windows, on Windows' file-system rules (Jimfs) where antivirus holds files open and no
 * directory can be opened: it starts with no state directory configured (its place is under %ProgramData%), reads its
 * settings from environment variables written in any case, delivers, stops in the middle of a spool document, starts
 * again and sends exactly what was not delivered.
 */
class WindowsAgentTest {

    private static final List<String> IDS = IntStream.range(0, 12)
            .mapToObj(i -> String.format("W1ND0W50-0000-0000-0000-%012d", i)).toList();
    private static final int ANSWERED = 5;

    private final FileSystem jimfs = Jimfs.newFileSystem(Configuration.windows());
    private final FaultyFileSystem disk = FaultyFileSystem.over(jimfs).refuseDirectoryChannels();
    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    @AfterEach
    void close() throws IOException {
        fixture.webhook().release();
        jimfs.close();
    }

    private InProcessAgent start() throws Exception {
        Platform windows = Platform.of(OperatingSystem.WINDOWS, disk, Map.of(
                "ProgramData", "C:\\Data", "Bridge_Webhook_Urls", fixture.webhook().url(), "bridge_webhook_secret", "s",
                "ComputerName", "westvm-7.corp.example"));
        // Not fixture.builder(): the webhook's settings come from the environment, as the test's point is.
        return fixture.closeAfter(InProcessAgent.on(windows).imds(fixture.imds()).bind("bootTime", (io.github.scheduledeventsbridge.platform.BootTime) () -> null)
                .with("camel.main.shutdown-timeout", "2")
                .with("camel.component.http.so-timeout", "4000").with("camel.component.http.response-timeout", "4000")
                .start());
    }

    private Path spool() {
        return disk.getPath("C:\\Data\\scheduled-events-bridge\\spool");
    }

    private List<Path> spoolFiles() throws IOException {
        if (!Files.isDirectory(spool())) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(spool())) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private static boolean storageUp(InProcessAgent agent) {
        return HealthCheckHelper.invokeReadiness(agent.context()).stream()
                .filter(r -> r.getCheck().getId().equals("storage")).allMatch(r -> r.getState() == HealthCheck.State.UP);
    }

    @Test
    void startsDeliversStopsAndRestartsWithoutLosingOrRepeatingAMessage() throws Exception {
        disk.holdOpen(file -> file.getFileName().toString().matches("(state|actions)\\.json|\\d+\\.jsonl?"), 3);
        fixture.imds().serve(Docs.document(2, IDS.stream().map(id -> Docs.scheduled(id, "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT",
                "vm-1")).toArray(String[]::new)));
        fixture.webhook().holdAfter(ANSWERED);
        try (InProcessAgent first = start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() == ANSWERED && fixture.webhook().held() > 0);
            assertThat(storageUp(first)).isTrue();
            assertThat(first.bean("vmIdentity", VmIdentity.class).hostName())
                    .as("the host name the platform gives").isEqualTo("WESTVM-7");
        }
        fixture.webhook().release();
        assertThat(Files.exists(disk.getPath("C:\\Data\\scheduled-events-bridge\\state.json")))
                .as("the state directory defaults to %ProgramData%\\scheduled-events-bridge").isTrue();
        assertThat(spoolFiles()).as("the rest waits in its spool document").hasSize(1);

        fixture.imds().serve(Docs.document(3, IDS.stream().map(id -> Docs.started(id, "Reboot", "vm-1")).toArray(String[]::new)));
        try (InProcessAgent second = start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.webhook().delivered().size() >= 2 * IDS.size());
            await().atMost(Duration.ofSeconds(10)).until(() -> spoolFiles().isEmpty());
            assertThat(storageUp(second)).isTrue();
        }

        List<WebhookReceiver.Request> delivered = fixture.webhook().delivered();
        assertThat(delivered).extracting(WebhookReceiver.Request::id).as("nothing sent twice").doesNotHaveDuplicates();
        assertThat(delivered).as("nothing lost").hasSize(2 * IDS.size()).allMatch(WebhookReceiver.Request::signatureValid);
        for (String id : IDS) {
            assertThat(fixture.webhook().transitionsOf(id)).as(id).containsExactly("Scheduled", "Started");
        }
        assertThat(disk.sharingViolations()).as("files held open on the way: state.json and the document, 3 times each")
                .isGreaterThanOrEqualTo(6);
        assertThat(disk.refusedDirectoryChannels()).isZero();
        assertThat(disk.flushesWithoutWriteAccess()).isZero();
    }
}
