package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.eventlog.EntryType;
import io.github.scheduledeventsbridge.eventlog.EventLogEntry;
import io.github.scheduledeventsbridge.eventlog.EventLogWriter;
import io.github.scheduledeventsbridge.health.OutageLog;
import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.storage.StorageHealth;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ServiceHostThread;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The agent's own life as the Windows Application log gets it (docs/windows.md): each kind with its fixed id and level,
 * written whether or not the Event Log sink is on, under the configured source, and under the default one when the
 * configuration is refused. A recording writer stands in for the Event Log, as in the sink's tests.
 */
class AgentLifeLogTest {

    /** One entry as written, with the source it was written under. */
    record Written(String source, EventLogEntry entry) {
    }

    private final List<Written> written = new CopyOnWriteArrayList<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private AutoCloseable recording;

    @TempDir
    Path state;

    @BeforeEach
    void record() {
        recording = AgentLifeLog.recordTo(source -> new EventLogWriter() {
            @Override
            public void write(EventLogEntry entry) {
                written.add(new Written(source, entry));
            }
        });
    }

    @AfterEach
    void stopRecording() throws Exception {
        recording.close();
        settings.keySet().forEach(System::clearProperty);
    }

    private List<Integer> ids() {
        return written.stream().map(w -> w.entry().eventId()).toList();
    }

    private Written only(int id) {
        return written.stream().filter(w -> w.entry().eventId() == id).reduce((a, b) -> {
            throw new AssertionError("two entries " + id + ": " + written);
        }).orElseThrow(() -> new AssertionError("no entry " + id + ": " + written));
    }

    @Test
    void theServiceSaysItStartedWithItsVersionAndSettingsFileAndThatItStoppedUnderTheConfiguredSource()
            throws Exception {
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            Path file = state.resolve("bridge.properties");
            java.nio.file.Files.writeString(file, "bridge.eventlog.source=Contoso Maintenance\n");
            // The host passes the settings as -D options (procrun's JvmOptions).
            settings.putAll(InProcessAgent.builder(state).imds(imds).with("bridge.config", file.toString())
                    .with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", "s")
                    .with("camel.main.shutdown-timeout", "2").settings());
            settings.forEach(System::setProperty);
            imds.serve(Docs.document(1, Docs.scheduled("11111111-0000-0000-0000-000000000001", "Reboot",
                    "Mon, 11 Apr 2022 22:26:58 GMT", "vm-1")));
            ServiceHostThread host = ServiceHostThread.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids().contains(2001));
            host.stop();
            assertThat(host.join()).isNull();
        }
        Written started = only(2001);
        assertThat(started.source()).as("the Event Log sink is off; the configured source all the same")
                .isEqualTo("Contoso Maintenance");
        assertThat(started.entry().type()).isEqualTo(EntryType.INFORMATION);
        assertThat(started.entry().message()).startsWith("scheduled-events-bridge " + BridgeVersion.current())
                .contains("started; settings: " + state.resolve("bridge.properties"));
        Written stopped = only(2002);
        assertThat(stopped.source()).isEqualTo("Contoso Maintenance");
        assertThat(stopped.entry().message()).isEqualTo("scheduled-events-bridge " + BridgeVersion.current() + " stopped");
        assertThat(ids()).as("started before stopped").containsSubsequence(2001, 2002);
    }

    @Test
    void aRefusedConfigurationIsWrittenWithThePrintedLineUnderTheDefaultSourceWhenTheSourceIsWhatWasRefused()
            throws Exception {
        settings.put("bridge.state.dir", state.toString());
        settings.put("bridge.management.port", "0");
        settings.put("bridge.imds.url", "http://127.0.0.1:9/");
        settings.put("bridge.eventlog.source", "App\\lication");
        settings.forEach(System::setProperty);

        assertThat(BridgeApplication.runAgent(BridgeApplication.newMain())).isEqualTo(BridgeApplication.BAD_CONFIGURATION);

        Written refused = only(2003);
        assertThat(refused.source()).isEqualTo("scheduled-events-bridge");
        assertThat(refused.entry().type()).isEqualTo(EntryType.ERROR);
        assertThat(refused.entry().message()).startsWith("Bad configuration: bridge.eventlog.source")
                .contains("no backslash").contains("started again every minute");
        assertThat(ids()).doesNotContain(2001, 2002);
    }

    @Test
    void storageFailingAndRecoveredAreAnErrorAndAnInformationWithTheLogsWords() {
        StorageHealth storage = new StorageHealth();
        try (LogCapture log = LogCapture.install()) {
            storage.failed(StorageHealth.STATE, "C:\\Data\\state.json: There is not enough space on the disk");
            storage.failed(StorageHealth.STATE, "again");
            storage.succeeded(StorageHealth.STATE);
            assertThat(log.lines()).anyMatch(l -> l.contains(only(2011).entry().message()));
        }
        assertThat(ids()).as("once per outage").containsExactly(2011, 2012);
        assertThat(only(2011).entry().type()).isEqualTo(EntryType.ERROR);
        assertThat(only(2011).entry().message()).startsWith("The state cannot be written: C:\\Data\\state.json: There "
                + "is not enough space on the disk. ");
        assertThat(only(2012).entry().type()).isEqualTo(EntryType.INFORMATION);
        assertThat(only(2012).entry().message()).startsWith("The state can be written again, after ")
                .endsWith("and 2 failed write(s)");
    }

    @Test
    void aSinksOutageBegunAndEndedAreAWarningAndAnInformation() throws Exception {
        Sink sink = new Sink("webhook-1", "webhook hooks.example.com", "webhook http://hooks.example.com/x", "tpl", Sink.Target.NONE, e -> true,
                false, 1);
        Clock clock = Clock.systemUTC();
        OutageLog outages = new OutageLog(new OutageLog.Settings(Duration.ofMinutes(5)), new SinkRegistry(List.of(sink)),
                new Spool(state), new PollBackoff(clock, Duration.ofSeconds(1), Duration.ofMinutes(1)), clock);
        outages.attemptFailed(sink.id(), sink.queue(0), new RuntimeException("HTTP 503"));
        outages.attemptFailed(sink.id(), sink.queue(0), new RuntimeException("HTTP 503"));
        outages.delivered(sink.id(), new SpoolEntry(sink.id(), sink.queue(0), state.resolve("x.json")));

        assertThat(ids()).containsExactly(2021, 2022);
        assertThat(only(2021).entry().type()).isEqualTo(EntryType.WARNING);
        assertThat(only(2021).entry().message()).startsWith("Sink webhook hooks.example.com is failing: ")
                .contains("HTTP 503");
        assertThat(only(2022).entry().message()).startsWith("Sink webhook hooks.example.com recovered")
                .contains("(2 failed attempt(s))");
    }

    @Test
    void anUnknownIdentityIsAWarningOncePerConsequence() {
        VmIdentity identity = new VmIdentity(Clock.systemUTC());
        identity.warnUnknown("leader-only approval cannot tell whether this VM leads: nothing is approved");
        identity.warnUnknown("leader-only approval cannot tell whether this VM leads: nothing is approved");

        assertThat(ids()).containsExactly(2031);
        assertThat(only(2031).entry().type()).isEqualTo(EntryType.WARNING);
        assertThat(only(2031).entry().message()).startsWith("This VM's IMDS name is not known yet")
                .contains("nothing is approved");
    }

    @Test
    void onThisLinuxMachineWithoutARecorderNothingIsWrittenAndNothingFails() throws Exception {
        recording.close();
        new StorageHealth().failed(StorageHealth.SPOOL, "read-only file system");
        assertThat(written).isEmpty();
        recording = AgentLifeLog.recordTo(source -> null);
    }
}
