package io.github.scheduledeventsbridge.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import io.github.scheduledeventsbridge.testing.Docs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The .deb on the system it is made for: Debian 12 booted with its own systemd 252 in a container
 * ({@link BookwormSystemd}, loopback only), the package installed with apt-get as an operator does, the agent polling a
 * loopback IMDS in the container ({@link FileImds}). From an earlier build's state (the agent run as a DynamicUser)
 * through install, kill -9, remove and reinstall, to purge. The steps share the one container, in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SystemdPackageIT {

    private static final Path TARGET = Path.of("target");
    private static final String AGENT = "scheduled-events-bridge.service";
    private static final String SOCKET = "scheduled-events-bridge-action.socket";
    /** A fixed port is safe here: the container has a network namespace of its own, with loopback alone. */
    private static final String IMDS_PORT = "8100";
    /** On the container's disk: what IMDS answers (the test writes it) and the approvals it received. */
    private static final String DOCUMENT = "/srv/seb-it/imds/scheduledevents.json";
    private static final String APPROVALS = "/srv/seb-it/imds/approvals.jsonl";
    /** An event of another VM, first seen by the earlier build: the migrated state must carry it on. */
    private static final String EARLIER = "0F0C1D2E-3A4B-4C5D-8E9F-0A1B2C3D4E5F";
    /** Highest acceptable `systemd-analyze security` exposure of the agent's unit (0 = most, 10 = least restricted). */
    private static final double AGENT_EXPOSURE_AT_MOST = 1.5;

    private final String secret = Base64.getEncoder().encodeToString(new SecureRandom().generateSeed(33));
    private BookwormSystemd container;
    private long started;
    private String installed;

    @BeforeAll
    void bootInstallingOverAnEarlierBuildsState() throws Exception {
        started = System.nanoTime();
        Path deb = deb();
        long cacheStart = System.nanoTime();
        Path root = BookwormSystemd.cachedRoot();
        log("root file system ready in %d s (%s)", seconds(cacheStart), root);
        container = BookwormSystemd.boot(root);
        log("booted at %d s", seconds(started));

        Path srv = Files.createDirectories(container.root().resolve("srv/seb-it/imds"));
        Files.copy(deb, srv.resolveSibling("scheduled-events-bridge.deb"));
        Path classes = srv.resolveSibling("classes/io/github/scheduledeventsbridge/packaging");
        Files.createDirectories(classes);
        Files.copy(TARGET.resolve("test-classes/io/github/scheduledeventsbridge/packaging/FileImds.class"), classes.resolve("FileImds.class"));
        serve(Docs.document(1));
        container.sh("dpkg-deb -x /srv/seb-it/scheduled-events-bridge.deb /srv/seb-it/earlier"
                + " && systemd-run --unit=seb-it-imds --collect /srv/seb-it/earlier/opt/scheduled-events-bridge/runtime/bin/java"
                + " -cp /srv/seb-it/classes io.github.scheduledeventsbridge.packaging.FileImds " + IMDS_PORT + " " + DOCUMENT + " " + APPROVALS);

        // An earlier build: the same agent run as its unit ran it, a DynamicUser with its state in /var/lib/private.
        Files.writeString(srv.resolveSibling("earlier.properties"), loopbackImds());
        container.sh("systemd-run --unit=" + AGENT + " --collect -p DynamicUser=yes -p StateDirectory=scheduled-events-bridge"
                + " -p StateDirectoryMode=0700 -p WorkingDirectory=/var/lib/scheduled-events-bridge -p SuccessExitStatus=143"
                + " -E BRIDGE_STATE_DIR=/var/lib/scheduled-events-bridge"
                + " /srv/seb-it/earlier/opt/scheduled-events-bridge/runtime/bin/java @/srv/seb-it/earlier/etc/scheduled-events-bridge/jvm.options"
                + " -Dbridge.config=/srv/seb-it/earlier.properties -jar /srv/seb-it/earlier/opt/scheduled-events-bridge/scheduled-events-bridge.jar");
        serve(Docs.document(2, Docs.event(EARLIER, "Scheduled", "Reboot", "", "other-vm")));
        awaitTransitions(EARLIER, "Scheduled", 1);
        // Its layout: the state in /var/lib/private, owned by a dynamic UID (61184-65519), /var/lib has a symlink.
        assertThat(container.sh("readlink /var/lib/scheduled-events-bridge; stat -c %u /var/lib/private/scheduled-events-bridge/state.json"))
                .as("the earlier build's layout").matches("private/scheduled-events-bridge\n6[1-5]\\d{3}\n");

        // The operator's settings and secrets come first (as cloud-init writes them), then the package, with no
        // terminal and no --force-confold, while the earlier build still runs.
        Path etc = Files.createDirectories(container.root().resolve("etc/scheduled-events-bridge"));
        Files.writeString(etc.resolve("bridge.properties"), operatorSettings());
        Files.writeString(etc.resolve("environment"), "BRIDGE_APPROVAL_SECRET=" + secret + "\n");
        Files.setPosixFilePermissions(etc.resolve("environment"), PosixFilePermissions.fromString("rw-------"));
        long install = System.nanoTime();
        installed = container.sh("apt-get install -y --no-install-recommends /srv/seb-it/scheduled-events-bridge.deb 2>&1");
        log("installed in %d s", seconds(install));
    }

    @AfterAll
    void powerOff() throws Exception {
        if (container != null) {
            try {
                container.keepLogs(TARGET.resolve("systemd-it"));
            } finally {
                container.close();
            }
            log("the whole run took %d s", seconds(started));
        }
    }

    @Test
    @Order(1)
    void aNonInteractiveInstallationKeepsThePreseededSettingsWithoutAsking() throws Exception {
        assertThat(installed).contains("Setting up scheduled-events-bridge").doesNotContain("Configuration file", "dpkg-old", "dpkg-dist");
        assertThat(container.root().resolve("etc/scheduled-events-bridge/bridge.properties")).hasContent(operatorSettings());
        assertThat(container.sh("dpkg-query -W -f='${Conffiles}' scheduled-events-bridge")).doesNotContain("bridge.properties");
    }

    @Test
    @Order(2)
    void theAgentRunsAsItsSystemUserOnTheEarlierBuildsStateAndPolls() throws Exception {
        assertThat(container.sh("systemctl is-active " + AGENT + " " + SOCKET)).isEqualTo("active\nactive\n");
        assertThat(container.sh("getent passwd scheduled-events-bridge scheduled-events-bridge-action | cut -d: -f1,6,7"))
                .isEqualTo("scheduled-events-bridge:/var/lib/scheduled-events-bridge:/usr/sbin/nologin\n"
                        + "scheduled-events-bridge-action:/var/lib/scheduled-events-bridge-action:/usr/sbin/nologin\n");
        assertThat(container.sh("stat -c %U /proc/$(systemctl show -p MainPID --value " + AGENT + ")")).isEqualTo("scheduled-events-bridge\n");
        // systemd moved the state out of /var/lib/private and gave it to the user.
        assertThat(container.sh("stat -c '%F %U %a' /var/lib/scheduled-events-bridge; ls -A /var/lib/private;"
                + " find /var/lib/scheduled-events-bridge ! -user scheduled-events-bridge"))
                .isEqualTo("directory scheduled-events-bridge 700\n");
        assertThat(journal()).contains("Found pre-existing private StateDirectory= directory /var/lib/private/scheduled-events-bridge");
        // It carries on from that state: the event the earlier build saw is not reported again, its next steps are.
        serve(Docs.document(3, Docs.event(EARLIER, "Started", "Reboot", "", "other-vm")));
        awaitTransitions(EARLIER, "Started", 1);
        serve(Docs.document(4));
        awaitTransitions(EARLIER, "Completed", 1);
        assertThat(transitions(EARLIER, "Scheduled")).isEqualTo(1);
        assertThat(transitions(EARLIER, "Started")).isEqualTo(1);
    }

    @Test
    @Order(3)
    void theUnitIsHardened() throws Exception {
        String analysis = container.sh("systemd-analyze security --no-pager " + AGENT);
        double exposure = exposure(analysis);
        log("systemd-analyze security %s: %.1f", AGENT, exposure);
        assertThat(exposure).as(analysis).isLessThanOrEqualTo(AGENT_EXPOSURE_AT_MOST);
        String pid = container.sh("systemctl show -p MainPID --value " + AGENT).strip();
        // The filter is in force on the running, polling JVM.
        assertThat(container.sh("grep -E '^(Seccomp|NoNewPrivs|CapEff):' /proc/" + pid + "/status"))
                .contains("Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t0000000000000000");
        assertThat(container.sh("systemctl show -p User -p DynamicUser -p ProcSubset -p ProtectProc -p SystemCallFilter " + AGENT))
                .contains("User=scheduled-events-bridge", "DynamicUser=no", "ProcSubset=pid", "ProtectProc=invisible");
    }

    @Test
    @Order(10)
    void killNineRestartsIt() throws Exception {
        String before = mainPid();
        container.sh("kill -9 " + before);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> !mainPid().equals(before) && !mainPid().equals("0")
                        && container.sh("systemctl is-active " + AGENT + " || true").equals("active\n"));
        assertThat(journal()).contains("Main process exited, code=killed, status=9/KILL");
        serve(Docs.document(5, Docs.event("1A2B3C4D-0000-4000-8000-00000000000A", "Scheduled", "Freeze", "", "other-vm")));
        awaitTransitions("1A2B3C4D-0000-4000-8000-00000000000A", "Scheduled", 1);
    }

    @Test
    @Order(11)
    void removeThenInstallRunsItAgain() throws Exception {
        container.sh("apt-get remove -y scheduled-events-bridge 2>&1");
        assertThat(container.exec("systemctl is-active " + AGENT + " " + SOCKET, Duration.ofSeconds(30)).output())
                .isEqualTo("inactive\ninactive\n");
        assertThat(container.sh("ls /etc/scheduled-events-bridge; test -e /run/scheduled-events-bridge-action.sock || echo no socket"))
                .contains("bridge.properties", "environment", "jvm.options", "no socket");
        assertThat(container.root().resolve("var/lib/scheduled-events-bridge/state.json")).exists();
        container.sh("apt-get install -y /srv/seb-it/scheduled-events-bridge.deb 2>&1");
        assertThat(container.sh("systemctl is-active " + AGENT + " " + SOCKET)).isEqualTo("active\nactive\n");
    }

    @Test
    @Order(20)
    void purgeLeavesNothingOfThePackageButItsUsers() throws Exception {
        // What an operator adds where the docs say: commands in /etc/scheduled-events-bridge/actions/.
        container.sh("mkdir -p /etc/scheduled-events-bridge/actions && printf '#!/bin/sh\\n' > /etc/scheduled-events-bridge/actions/mine.sh");
        container.sh("apt-get purge -y scheduled-events-bridge 2>&1");
        assertThat(container.exec("dpkg-query -W -f='${Status}' scheduled-events-bridge", Duration.ofSeconds(30)).output())
                .doesNotContain("installed", "config-files");
        String left = container.sh("find / -xdev \\( -path /proc -o -path /sys -o -path /var/lib/dpkg -o -path /var/log"
                + " -o -path /var/cache/apt -o -path /srv/seb-it \\) -prune -o -name '*scheduled-events-bridge*' -print;"
                + " find /run /var/lib/private /var/lib/systemd -name '*scheduled-events-bridge*'");
        assertThat(left).as("left after purge").isEmpty();
        // System users stay, as Debian's do: their IDs are not handed out again to someone who would own their files.
        assertThat(container.sh("getent passwd scheduled-events-bridge scheduled-events-bridge-action | cut -d: -f1,7"))
                .isEqualTo("scheduled-events-bridge:/usr/sbin/nologin\nscheduled-events-bridge-action:/usr/sbin/nologin\n");
    }

    private String operatorSettings() {
        return "# the operator's, written before the package\n" + loopbackImds();
    }

    private static String loopbackImds() {
        return "bridge.imds.url=http://127.0.0.1:" + IMDS_PORT + "/metadata/scheduledevents\n"
                + "bridge.imds.instance-url=http://127.0.0.1:" + IMDS_PORT + "/metadata/instance/compute\n"
                + "bridge.imds.poll-interval=500\n";
    }

    private void serve(String document) throws Exception {
        Path file = container.root().resolve(DOCUMENT.substring(1));
        Path next = file.resolveSibling("next.json");
        Files.writeString(next, document);
        Files.move(next, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private String journal() throws Exception {
        return container.sh("journalctl -b --no-pager -o cat");
    }

    /** How many times any agent, the earlier build included, logged this transition of this event. */
    private long transitions(String eventId, String transition) throws Exception {
        Pattern line = Pattern.compile(" transitions - " + transition + " \\w+ " + eventId + " ");
        return journal().lines().filter(l -> line.matcher(l).find()).count();
    }

    private void awaitTransitions(String eventId, String transition, int count) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> transitions(eventId, transition) >= count);
    }

    private String mainPid() throws Exception {
        return container.sh("systemctl show -p MainPID --value " + AGENT).strip();
    }

    static double exposure(String analysis) {
        Matcher overall = Pattern.compile("Overall exposure level for \\S+: (\\d+\\.\\d)").matcher(analysis);
        assertThat(overall.find()).as(analysis).isTrue();
        return Double.parseDouble(overall.group(1));
    }

    private static Path deb() throws Exception {
        try (Stream<Path> files = Files.list(TARGET)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().matches("scheduled-events-bridge_.*_amd64\\.deb")).toList();
            assertThat(found).as("target/*.deb (mvn -B package makes it)").hasSize(1);
            return found.get(0).toAbsolutePath();
        }
    }

    private static long seconds(long since) {
        return Duration.ofNanos(System.nanoTime() - since).toSeconds();
    }

    private static void log(String format, Object... args) {
        System.out.println("[systemd-it] " + String.format(format, args));
    }
}
