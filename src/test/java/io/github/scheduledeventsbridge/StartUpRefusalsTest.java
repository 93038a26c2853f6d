package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What start-up refuses, and how it says so, with the agent started in this JVM through the jar's own start
 * (BridgeApplication.runAgent on newMain(), as main does): the exit code it returns, the one line it prints on
 * standard error, and the log. Settings come as -D (system properties) and as environment variables (through the
 * agent's platform, which is where the agent reads them). ConfigurationIT keeps one run of the packaged jar per kind
 * of refusal: the process's exit status, its whole output, the real environment, another user.
 */
class StartUpRefusalsTest {

    @TempDir
    Path work;

    private final Set<String> propertiesSet = new HashSet<>();

    @AfterEach
    void clearProperties() {
        propertiesSet.forEach(System::clearProperty);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "bridge.imds.poll-interval | 100      | below the minimum of 200 ms",
            "bridge.filter.resources   | some     | neither 'all' nor 'own'",
            "bridge.webhook.urls       | ftp://x  | not an http(s) URL",
            "bridge.imds.timeout       | soon     | not a number of milliseconds",
            "bridge.simulator.scenarios| nope     | nope",
            "bridge.eventlog.enabled   | true     | true needs Windows (it writes to the Windows Event Log)"})
    void aBadSettingStopsStartUpWithOneLineNamingTheKey(String key, String value, String reason) throws Exception {
        Refusal refusal = start(Map.of(key, value, "bridge.simulator.enabled", "true"), Map.of());

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).contains("Bad configuration: " + key + ": ").contains(reason)
                .contains("(from -D" + key + ")");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "x                           | at least 16 are required",
            "change-me                   | placeholder",
            "change-me-to-something-long | placeholder"})
    void aWeakOrPlaceholderManagementPasswordStopsStartUpWithOneLineWithoutIt(String password, String reason)
            throws Exception {
        Refusal refusal = start(Map.of(), Map.of("BRIDGE_MANAGEMENT_USERNAME", "operator",
                "BRIDGE_MANAGEMENT_PASSWORD", password));

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.stderr.lines()).singleElement().satisfies(line -> assertThat(line)
                .contains("Bad configuration: bridge.management.password: ").contains(reason)
                .contains("(from environment variable BRIDGE_MANAGEMENT_PASSWORD)"));
        if (password.length() > 1) {
            assertThat(refusal.stderr + refusal.log).doesNotContain(password);
        }
    }

    @Test
    void aBadCommandLineValueBeatsAValidEnvironmentVariableWhichBeatsTheFile() throws Exception {
        Path file = Files.writeString(work.resolve("bridge.properties"),
                "bridge.imds.poll-interval=100\nbridge.filter.resources=bogus\n");

        Refusal refusal = start(Map.of("bridge.config", file.toString(), "bridge.imds.poll-interval", "150"),
                Map.of("BRIDGE_IMDS_POLL_INTERVAL", "300", "BRIDGE_FILTER_RESOURCES", "own"));

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).as("the file's two bad values are overridden; -D's is not")
                .startsWith("Bad configuration: bridge.imds.poll-interval: 150 is below the minimum of 200 ms")
                .endsWith("(from -Dbridge.imds.poll-interval)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "sysprop | bridge.webhok.urls         | -Dbridge.webhok.urls                    | bridge.webhook.urls",
            "env     | BRIDGE_WEBHOOK_URL         | environment variable BRIDGE_WEBHOOK_URL | BRIDGE_WEBHOOK_URLS",
            "file    | bridge.imds.poll-intervall | file                                    | bridge.imds.poll-interval"})
    void aMistypedKeyStopsStartUpNamingItsSourceAndTheNearestKey(String where, String key, String source,
                                                                  String suggestion) throws Exception {
        Path file = Files.writeString(work.resolve("typo.properties"), where.equals("file") ? key + "=500\n" : "");
        Map<String, String> properties = new LinkedHashMap<>(Map.of("bridge.config", file.toString()));
        if (where.equals("sysprop")) {
            properties.put(key, "http://127.0.0.1:9/");
        }

        Refusal refusal = start(properties, where.equals("env") ? Map.of(key, "http://127.0.0.1:9/") : Map.of());

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).contains("Bad configuration: " + key + ": is not a known key")
                .contains("did you mean " + suggestion + "?").contains("(from " + source);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "bridge.log.format                  | xml  | bridge.log.format: 'xml' is neither text nor json",
            "bridge.email.username              | seb  | bridge.email.password: is required when bridge.email.username is set",
            "bridge.delivery.initial-backoff    | 9000 | bridge.delivery.initial-backoff: 9000 is above bridge.delivery.max-backoff",
            "bridge.approval.auto.after-prepare | true | bridge.approval.auto.after-prepare: true needs bridge.action.prepare.command",
            "bridge.action.prepare.event-types  | Nap  | bridge.action.prepare.event-types: 'Nap' is not one of"})
    void settingsThatCanNeverWorkAreRefusedAtStartUp(String key, String value, String reason) throws Exception {
        Refusal refusal = start(Map.of(key, value, "bridge.email.host", "smtp.example.com",
                "bridge.email.from", "a@example.com", "bridge.email.to", "b@example.com"), Map.of());

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).contains("Bad configuration: " + reason);
    }

    @Test
    void theSimulatorAndAnExplicitImdsUrlTogetherAreRefused() throws Exception {
        Refusal refusal = start(Map.of("bridge.simulator.enabled", "true", "bridge.imds.url", "http://127.0.0.1:9/x"),
                Map.of());

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).contains("Bad configuration: bridge.imds.url: cannot be set together with "
                + "bridge.simulator.enabled=true").contains("(from -Dbridge.imds.url)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"change-me", "x", "secret", "changeme", "<your-approval-secret>",
            "change-me-to-at-least-32-random-characters", "short-but-not-a-placeholder",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void aWeakOrPlaceholderApprovalSecretStopsStartUpWithOneLineWithoutIt(String secret) throws Exception {
        Refusal refusal = start(Map.of("bridge.simulator.enabled", "true", "bridge.approval.port", "0"),
                Map.of("BRIDGE_APPROVAL_SECRET", secret));

        assertThat(refusal.code).isEqualTo(2);
        assertThat(refusal.line()).startsWith("Bad configuration: bridge.approval.secret: ");
        assertThat(refusal.stderr + refusal.log).doesNotContain("\tat ").doesNotContain("Exception");
        if (secret.length() > 6) {
            assertThat(refusal.stderr + refusal.log).as("the secret itself is never printed").doesNotContain(secret);
        }
    }

    @Test
    void anApprovalPortAlreadyInUseStopsStartUpBeforeTheApiIsAnnounced() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));

            Refusal refusal = start(Map.of("bridge.simulator.enabled", "true",
                            "bridge.approval.port", Integer.toString(taken.getLocalPort())),
                    Map.of("BRIDGE_APPROVAL_SECRET", "a-strong-approval-secret-0123456789abcdef"));

            assertThat(refusal.code).isEqualTo(2);
            assertThat(refusal.line()).startsWith("Bad configuration: bridge.approval.port: ")
                    .contains(Integer.toString(taken.getLocalPort()));
            assertThat(refusal.stderr + refusal.log).doesNotContain("\tat ").doesNotContain("Remote approval API on");
        }
    }

    /** The exit code runAgent returned, what it printed on standard error and what it logged. */
    private record Refusal(int code, String stderr, String log) {
        /** The refusal is the one line that says "Bad configuration". */
        String line() {
            assertThat(stderr.lines().filter(l -> l.contains("Bad configuration"))).as(stderr + log).hasSize(1);
            return stderr.lines().filter(l -> l.contains("Bad configuration")).findFirst().orElseThrow().strip();
        }
    }

    /**
     * Runs the agent as the jar's main does, with these -D settings and environment, and a state directory, any free
     * management port and (unless the simulator is on or the test names one) a closed loopback port for IMDS: a
     * start that is not refused polls only loopback, and fails the test after 60 s.
     */
    private Refusal start(Map<String, String> properties, Map<String, String> environment) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>(Map.of("bridge.state.dir", work.resolve("s").toString(),
                "bridge.management.port", "0"));
        if (!"true".equals(properties.get("bridge.simulator.enabled")) && !properties.containsKey("bridge.imds.url")) {
            settings.put("bridge.imds.url", "http://127.0.0.1:9/");
            settings.put("bridge.imds.instance-url", "http://127.0.0.1:9/");
        }
        settings.putAll(properties);
        settings.forEach((key, value) -> {
            System.setProperty(key, value);
            propertiesSet.add(key);
        });
        Main main = BridgeApplication.newMain();
        main.bind("platform", Platform.of(OperatingSystem.current(), FileSystems.getDefault(), environment));
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "bridge-run");
            thread.setDaemon(true);
            return thread;
        });
        try (LogCapture log = LogCapture.install()) {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            Future<Integer> run = runner.submit(() -> BridgeApplication.runAgent(main));
            try {
                int code = run.get(60, TimeUnit.SECONDS);
                return new Refusal(code, captured.toString(StandardCharsets.UTF_8), log.text());
            } catch (TimeoutException e) {
                main.stop();
                throw new AssertionError("started instead of refusing; log:\n" + log.text(), e);
            }
        } finally {
            System.setErr(stderr);
            runner.shutdownNow();
        }
    }
}
