package io.github.scheduledeventsbridge.packaging;

import static io.github.scheduledeventsbridge.packaging.Podman.must;
import static io.github.scheduledeventsbridge.packaging.Podman.podman;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Dockerfile built and run, as docs/install.md's container recipe does, with podman: from two base images made
 * here from Debian packages ({@link Podman}), the Maven stage reaching Maven Central as this machine does (host
 * network, this machine's Maven repository mounted for the build only). Each container runs on the host's network
 * with its IMDS and its webhook receiver the test's, on loopback: nothing it polls is 169.254.169.254.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContainerImageIT {

    private static final String IMAGE = "localhost/scheduled-events-bridge:it";
    private static final String STATE = "/var/lib/scheduled-events-bridge";
    private static final String FIRST = "C0A1B2C3-0000-4000-8000-000000000001";
    private static final String WHILE_STOPPING = "C0A1B2C3-0000-4000-8000-000000000002";
    private static final String WHILE_KILLED = "C0A1B2C3-0000-4000-8000-000000000003";

    private final String tag = "seb-it-" + ProcessHandle.current().pid();
    private final String secret = Base64.getEncoder().encodeToString(new SecureRandom().generateSeed(33));
    private final List<String> containers = new ArrayList<>();
    private ScriptedImds imds;
    private WebhookReceiver receiver;
    private String buildImage;
    private String runtimeImage;

    @BeforeAll
    void buildTheImageFromDebianMadeBases() throws Exception {
        long start = System.nanoTime();
        buildImage = Podman.base(Podman.Base.BUILD);
        runtimeImage = Podman.base(Podman.Base.RUNTIME);
        log("base images ready in %d s: %s, %s", seconds(start), buildImage, runtimeImage);
        long build = System.nanoTime();
        HostCommand.Result before = podman(Duration.ofMinutes(1), "image", "inspect", "-f", "{{.Id}}", IMAGE);
        String earlier = before.exitCode() == 0 ? before.output().strip() : "";
        must(build(buildImage, runtimeImage, IMAGE), Duration.ofMinutes(20));
        log("image built in %d s", seconds(build));
        // The image of an earlier run, when this one differs, goes (with the layers only it used).
        if (!earlier.isEmpty() && !must("image", "inspect", "-f", "{{.Id}}", IMAGE).strip().equals(earlier)) {
            podman(Duration.ofMinutes(2), "rmi", earlier);
        }
        imds = new ScriptedImds();
        imds.serve(Docs.document(1));
        receiver = new WebhookReceiver(secret);
        must("volume", "create", tag);
    }

    @AfterAll
    void removeContainersAndVolume() throws Exception {
        for (String name : containers) {
            podman(Duration.ofMinutes(1), "rm", "-f", "-t", "0", name);
        }
        podman(Duration.ofMinutes(1), "volume", "rm", "-f", tag);
        if (receiver != null) {
            receiver.close();
        }
        if (imds != null) {
            imds.close();
        }
    }

    private static List<String> build(String buildImage, String runtimeImage, String tag) {
        List<String> command = new ArrayList<>(List.of("podman", "build"));
        command.addAll(Podman.RUN_FLAGS);
        // docker format keeps the HEALTHCHECK (OCI images have none). The Maven stage reaches Maven Central as this
        // machine does: its network, its Java trust store (which may hold a proxy's CA), and its Maven repository,
        // so that the build does not download again what is already here. Build-time volumes only: not in the image.
        command.addAll(List.of("--format", "docker", "--pull=never", "--network", "host",
                "-v", Path.of(System.getProperty("user.home"), ".m2").toAbsolutePath() + ":/root/.m2",
                "-v", "/etc/ssl/certs/java/cacerts:/etc/ssl/certs/java/cacerts:ro",
                "-t", tag));
        // null: the argument left out, so the Dockerfile's default (a public image) is asked for.
        if (buildImage != null) {
            command.addAll(List.of("--build-arg", "BUILD_IMAGE=" + buildImage));
        }
        command.addAll(List.of("--build-arg", "RUNTIME_IMAGE=" + runtimeImage, "."));
        return command;
    }

    /**
     * docs/install.md's run line, as printed: its flags between the container's name and its settings, with the state
     * volume {@code volume} for seb-state; then this machine's runtime flags, docker's --read-only (podman's own adds
     * tmpfs mounts), the test's IMDS, receiver and management port.
     */
    private String run(String name, String volume, String... more) throws Exception {
        List<String> command = new ArrayList<>(List.of("run", "-d", "--name", name));
        command.addAll(documentedRunFlags().stream().map(flag -> flag.replace("seb-state:", volume + ":")).toList());
        command.addAll(Podman.RUN_FLAGS);
        command.addAll(List.of("--read-only-tmpfs=false",
                "-e", "BRIDGE_IMDS_URL=" + imds.url(), "-e", "BRIDGE_IMDS_INSTANCE_URL=" + imds.instanceUrl(),
                "-e", "BRIDGE_IMDS_POLL_INTERVAL=500", "-e", "BRIDGE_MANAGEMENT_PORT=" + FreePorts.unused(),
                "-e", "BRIDGE_WEBHOOK_URLS=" + receiver.url(), "-e", "BRIDGE_WEBHOOK_SECRET=" + secret));
        command.addAll(List.of(more));
        command.add(IMAGE);
        containers.add(name);
        must(command.toArray(String[]::new));
        return name;
    }

    /** The flags of docs/install.md's {@code docker run -d --name seb FLAGS -e … -e … scheduled-events-bridge}. */
    private static List<String> documentedRunFlags() throws Exception {
        String page = Files.readString(Path.of("docs/install.md"));
        Matcher recipe = Pattern.compile("(?s)```sh\ndocker build -t scheduled-events-bridge \\.\n(docker run .*?)\n```").matcher(page);
        assertThat(recipe.find()).as("docs/install.md's docker build and docker run lines").isTrue();
        assertThat(page).contains("`podman build --format docker`");
        List<String> words = List.of(recipe.group(1).replace("\\\n", " ").strip().split("\\s+"));
        assertThat(words.subList(0, 5)).containsExactly("docker", "run", "-d", "--name", "seb");
        assertThat(words.get(words.size() - 1)).isEqualTo("scheduled-events-bridge");
        return words.subList(5, words.indexOf("-e"));
    }

    /** The documented --stop-timeout, in seconds. */
    private static int stopTimeout() throws Exception {
        List<String> flags = documentedRunFlags();
        return Integer.parseInt(flags.get(flags.indexOf("--stop-timeout") + 1));
    }

    @Test
    @Order(1)
    void itRunsReadOnlyAsUser10001DeliversASignedWebhookAndReportsItsHealth() throws Exception {
        String name = run(tag + "-1", tag);
        imds.serve(Docs.document(2, Docs.scheduled(FIRST, "Reboot", "Mon, 19 Sep 2016 18:29:47 GMT", "vm-under-test")));
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> receiver.delivered().stream().anyMatch(r -> r.eventId().equals(FIRST)));
        assertThat(receiver.delivered()).filteredOn(r -> r.eventId().equals(FIRST))
                .allMatch(WebhookReceiver.Request::signatureValid).extracting(WebhookReceiver.Request::transition).containsExactly("Scheduled");
        assertThat(must("exec", name, "grep", "^Uid:", "/proc/1/status")).matches("Uid:\\s+10001\\s+10001\\s+10001\\s+10001\\s*");
        assertThat(must("exec", name, "stat", "-c", "%u %a", STATE, STATE + "/state.json")).isEqualTo("10001 700\n10001 600\n");

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .until(() -> podman(Duration.ofSeconds(30), "healthcheck", "run", name).exitCode() == 0);
        long pid = Long.parseLong(must("inspect", "-f", "{{.State.Pid}}", name).strip());
        long rss = Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElseThrow();
        log("image size %s MB, container RSS %d MB (the agent, polling, one delivery made)",
                Long.parseLong(must("image", "inspect", "-f", "{{.Size}}", IMAGE).strip()) / 1_000_000, rss / 1024);

        // A hung agent (stopped from outside: the container's init ignores SIGSTOP from inside) is unhealthy.
        must("kill", "--signal", "STOP", name);
        HostCommand.Result hung;
        try {
            hung = podman(Duration.ofSeconds(60), "healthcheck", "run", name);
        } finally {
            must("kill", "--signal", "CONT", name);
        }
        assertThat(hung.exitCode()).as(hung.output()).isNotZero();
        assertThat(hung.output()).contains("unhealthy");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .until(() -> podman(Duration.ofSeconds(30), "healthcheck", "run", name).exitCode() == 0);
    }

    @Test
    @Order(2)
    void spooledMessagesSurviveAStopAndAKillAndAreDeliveredOnceTheReceiverIsBack() throws Exception {
        receiver.answerWith(503);
        imds.serve(Docs.document(3, Docs.scheduled(WHILE_STOPPING, "Freeze", "", "vm-under-test")));
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.failedAttempts().stream().anyMatch(r -> r.eventId().equals(WHILE_STOPPING)));
        int stopTimeout = stopTimeout();
        long stop = System.nanoTime();
        must(List.of("podman", "stop", tag + "-1"), Duration.ofSeconds(stopTimeout + 30));
        long stopped = Duration.ofNanos(System.nanoTime() - stop).toMillis();
        log("podman stop took %d ms", stopped);
        assertThat(stopped).isLessThan(stopTimeout * 1000L);
        // 143: the JVM ended on SIGTERM, after its shutdown hooks; 137 would be podman's SIGKILL after the timeout.
        assertThat(must("inspect", "-f", "{{.State.ExitCode}}", tag + "-1").strip()).isEqualTo("143");
        assertThat(must("logs", tag + "-1")).contains("kept in the spool, delivered after the next start").doesNotContain("\tat ");

        String second = run(tag + "-2", tag);
        imds.serve(Docs.document(4, Docs.scheduled(WHILE_STOPPING, "Freeze", "", "vm-under-test"),
                Docs.scheduled(WHILE_KILLED, "Redeploy", "", "vm-under-test")));
        await().atMost(Duration.ofSeconds(120)).until(() -> receiver.failedAttempts().stream().anyMatch(r -> r.eventId().equals(WHILE_KILLED)));
        must("kill", second);

        run(tag + "-3", tag);
        receiver.answerWith(200);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() ->
                receiver.delivered().stream().filter(r -> r.eventId().equals(WHILE_STOPPING) || r.eventId().equals(WHILE_KILLED)).count() >= 2);
        assertThat(receiver.delivered()).filteredOn(r -> !r.eventId().equals(FIRST))
                .extracting(r -> r.transition() + " " + r.eventId()).containsExactlyInAnyOrder("Scheduled " + WHILE_STOPPING, "Scheduled " + WHILE_KILLED);
    }

    @Test
    @Order(3)
    void aStateDirectoryUser10001CannotWriteOrAnUnreadableSettingsFileStopsItWithOneClearLine(@TempDir Path dir) throws Exception {
        Path rootOwned = Files.createDirectories(dir.resolve("state"));
        Files.setPosixFilePermissions(rootOwned, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEndsWithOneLine(run(tag + "-4", rootOwned.toString()), "Bad configuration: bridge.state.dir: " + STATE + " is not a writable directory");

        Path settings = Files.writeString(dir.resolve("bridge.properties"), "bridge.imds.poll-interval=500\n");
        Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("rw-------"));
        assertEndsWithOneLine(run(tag + "-5", tag, "-v", settings + ":/etc/scheduled-events-bridge/bridge.properties:ro",
                "-e", "BRIDGE_CONFIG=/etc/scheduled-events-bridge/bridge.properties"),
                "Bad configuration: bridge.config: /etc/scheduled-events-bridge/bridge.properties is not a readable file");
    }

    private static void assertEndsWithOneLine(String name, String saying) throws Exception {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> must("inspect", "-f", "{{.State.Status}}", name).strip().equals("exited"));
        String logs = must("logs", name);
        assertThat(must("inspect", "-f", "{{.State.ExitCode}}", name).strip()).as(logs).isNotEqualTo("0");
        assertThat(logs).as("one clear line").contains(saying).doesNotContain("\tat ");
    }

    @Test
    @Order(4)
    void aWrongOrMissingBaseImageStopsTheBuildWithOneLineNamingIt() throws Exception {
        HostCommand.Result wrong = Podman.run(build(buildImage, "localhost/seb-it-no-such-image:0", tag + "-never"), Duration.ofMinutes(10));
        assertThat(wrong.exitCode()).isNotZero();
        assertThat(wrong.output()).containsPattern("(?m)^Error: .*localhost/seb-it-no-such-image:0: image not known$");
        // No BUILD_IMAGE: the default, which no registry here serves (--pull=never, as on a machine without one).
        HostCommand.Result missing = Podman.run(build(null, runtimeImage, tag + "-never"), Duration.ofMinutes(10));
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.output()).containsPattern("(?m)^Error: .*maven:3.9-eclipse-temurin-17: image not known$");
        assertThat(podman(Duration.ofMinutes(1), "image", "exists", tag + "-never").exitCode()).as("no image made").isNotZero();
    }

    private static long seconds(long since) {
        return Duration.ofNanos(System.nanoTime() - since).toSeconds();
    }

    private static void log(String format, Object... args) {
        System.out.println("[container-it] " + String.format(format, args));
    }
}
