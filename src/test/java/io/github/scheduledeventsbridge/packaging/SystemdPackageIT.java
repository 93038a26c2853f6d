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
    /** An event of this VM: its prepare stops myapp.service, its recover starts it again. */
    private static final String PREPARED = "5E7D1C2B-6A4F-4B0E-9C1D-2E3F4A5B6C7D";
    /** Highest acceptable `systemd-analyze security` exposure (0 = most, 10 = least restricted): the agent's unit... */
    private static final double AGENT_EXPOSURE_AT_MOST = 1.5;
    /** ...and a command's, which needs more (D-Bus for systemctl, netlink for ss, chown for its own files). */
    private static final double COMMAND_EXPOSURE_AT_MOST = 2.0;
    private static final String EXAMPLES = "/opt/scheduled-events-bridge/examples";

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
        installTestTools();
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

    /**
     * The docs' recipes, as they give them: the polkit rule for myapp.service, the drop-in and directory for
     * /var/lib/myapp. Then an event of this VM: its prepare (the shipped examples, then a probe of what a command can
     * reach) runs as the commands' user in a unit of its own, through the socket; its recover starts myapp again.
     */
    @Test
    @Order(4)
    void commandsActThroughTheDocumentedRecipesAsTheirOwnUserAwayFromTheAgentsSecretsAndState() throws Exception {
        // As printed (as root here, so without sudo): the polkit rule, then the directory and its drop-in.
        container.sh(docsBlock("```sh", "/polkit-1/rules.d/").replace("sudo ", ""));
        container.sh("set -e\n" + docsBlock("```sh", "install -d", "myapp.conf").replace("sudo ", ""));
        assertThat(container.sh("systemctl is-active myapp.service")).isEqualTo("active\n");
        Files.writeString(container.root().resolve("srv/seb-it/agent.pid"), mainPid());

        serve(Docs.document(6, Docs.event(PREPARED, "Scheduled", "Reboot", "", FileImds.VM_NAME)));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> journal().contains("[prepare " + PREPARED + "]") && journal().contains("drained: no connection left on port 9"));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(container.root().resolve("var/lib/myapp/probe.txt")));
        assertThat(container.exec("systemctl is-active myapp.service", Duration.ofSeconds(30)).output()).isEqualTo("inactive\n");
        // ss lists the connections over netlink (without it, it complains and falls back to /proc/net).
        assertThat(journal()).doesNotContain("Cannot open netlink socket");
        assertThat(container.sh("cd /var/lib/myapp/checkpoints && stat -c '%n %U' " + PREPARED + ".ckpt " + PREPARED + ".done"))
                .isEqualTo(PREPARED + ".ckpt scheduled-events-bridge-action\n" + PREPARED + ".done scheduled-events-bridge-action\n");
        assertThat(container.root().resolve("var/lib/myapp/checkpoints/" + PREPARED + ".event.json")).content().contains(PREPARED);

        String probe = Files.readString(container.root().resolve("var/lib/myapp/probe.txt"));
        assertThat(probe).contains("user scheduled-events-bridge-action\n", "/scheduled-events-bridge-action@",
                        "/etc/scheduled-events-bridge/environment: Permission denied", "cannot touch '/var/lib/scheduled-events-bridge/planted'",
                        "own directory /var/lib/scheduled-events-bridge-action", "wrote its own directory")
                .doesNotContain(secret, "BRIDGE_", "wrote the agent's state");
        assertThat(container.root().resolve("var/lib/scheduled-events-bridge/planted")).doesNotExist();
        // The same probe as root finds the secret twice (the file, the agent's environment): it can see what it looks for.
        container.sh("/usr/local/lib/seb-it/probe /root/probe.txt");
        assertThat(Files.readString(container.root().resolve("root/probe.txt")).split(Pattern.quote("BRIDGE_APPROVAL_SECRET=" + secret), -1))
                .hasSizeGreaterThanOrEqualTo(3);
        // The daemon the command left behind went with its unit (KillMode=control-group).
        Matcher daemon = Pattern.compile("daemon (\\d+)").matcher(probe);
        assertThat(daemon.find()).as(probe).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> container.exec("test -e /proc/" + daemon.group(1), Duration.ofSeconds(10)).exitCode() != 0);

        String analysis = container.sh("systemd-analyze security --no-pager scheduled-events-bridge-action@0-1.service");
        log("systemd-analyze security scheduled-events-bridge-action@.service: %.1f", exposure(analysis));
        assertThat(exposure(analysis)).as(analysis).isLessThanOrEqualTo(COMMAND_EXPOSURE_AT_MOST);

        serve(Docs.document(7));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> container.exec("systemctl is-active myapp.service", Duration.ofSeconds(30)).output().equals("active\n"));
        assertThat(journal()).contains("[recover " + PREPARED + "] starting myapp.service after " + PREPARED);
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
        // The operator's own files, from the recipes, are the operator's to delete.
        String left = container.sh("find / -xdev \\( -path /proc -o -path /sys -o -path /var/lib/dpkg -o -path /var/log"
                + " -o -path /var/cache/apt -o -path /srv/seb-it -o -path /etc/polkit-1/rules.d/50-scheduled-events-bridge-myapp.rules"
                + " -o -path '/etc/systemd/system/scheduled-events-bridge-action@.service.d' \\) -prune -o -name '*scheduled-events-bridge*' -print;"
                + " find /run /var/lib/private /var/lib/systemd -name '*scheduled-events-bridge*'");
        assertThat(left).as("left after purge").isEmpty();
        // System users stay, as Debian's do: their IDs are not handed out again to someone who would own their files.
        assertThat(container.sh("getent passwd scheduled-events-bridge scheduled-events-bridge-action | cut -d: -f1,7"))
                .isEqualTo("scheduled-events-bridge:/usr/sbin/nologin\nscheduled-events-bridge-action:/usr/sbin/nologin\n");
    }

    private String operatorSettings() throws Exception {
        return "# the operator's, written before the package\n" + loopbackImds()
                + "bridge.drain.port=8091\n"
                // The docs' settings for the shipped examples as printed; the prepare goes on with the drain example
                // and the test's probe.
                + docsBlock("```properties", "bridge.action.prepare.command=UNIT=myapp.service").replaceFirst("(?m)^(bridge.action.prepare.command=.*)$",
                        "$1 && SERVICE_PORT=9 PROBE_GRACE_SECONDS=0 " + EXAMPLES + "/actions/drain-behind-load-balancer.sh"
                        + " && /usr/local/lib/seb-it/probe /var/lib/myapp/probe.txt")
                + "bridge.action.timeout=60000\n";
    }

    /**
     * What the test brings into the container: an application unit for the commands to stop and start, its checkpoint
     * tool (a stand-in), and a probe of what a command can reach (into the file it is given).
     */
    private void installTestTools() throws Exception {
        Path system = container.root().resolve("etc/systemd/system");
        Files.writeString(system.resolve("myapp.service"), "[Unit]\nDescription=the application on the VM\n"
                + "[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n");
        Path tools = Files.createDirectories(container.root().resolve("usr/local/lib/seb-it"));
        // The docs' name for the application's checkpoint tool.
        Path checkpoint = Files.createDirectories(container.root().resolve("usr/local/bin")).resolve("myapp-checkpoint");
        Files.writeString(checkpoint, "#!/bin/sh\necho checkpoint > \"$1\"\n");
        Files.setPosixFilePermissions(checkpoint, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(tools.resolve("probe"), """
                #!/bin/sh
                {
                  echo "user $(id -un)"
                  cat /proc/self/cgroup
                  cat /etc/scheduled-events-bridge/environment
                  for pid in $(cat /srv/seb-it/agent.pid) $(ls /proc | grep -E '^[0-9]+$'); do
                    tr '\\0' '\\n' < /proc/$pid/environ | grep '^BRIDGE_'
                  done
                  env | grep '^BRIDGE_'
                  touch /var/lib/scheduled-events-bridge/planted && echo "wrote the agent's state"
                  echo "own directory $(pwd)"
                  touch own-file && echo "wrote its own directory"
                  setsid sleep 600 > /dev/null 2>&1 < /dev/null &
                  echo "daemon $!"
                } > "$1" 2>&1
                """);
        Files.setPosixFilePermissions(tools.resolve("probe"), PosixFilePermissions.fromString("rwxr-xr-x"));
        container.sh("systemctl enable --now myapp.service");
    }

    private static String loopbackImds() {
        return "bridge.imds.url=http://127.0.0.1:" + IMDS_PORT + "/metadata/scheduledevents\n"
                + "bridge.imds.instance-url=http://127.0.0.1:" + IMDS_PORT + "/metadata/instance/compute\n"
                + "bridge.imds.poll-interval=500\n";
    }

    /** The fenced block of docs/actions-and-drain.md that opens with {@code fence} and holds every one of {@code marks}. */
    private static String docsBlock(String fence, String... marks) throws Exception {
        String page = Files.readString(Path.of("docs/actions-and-drain.md"));
        Matcher block = Pattern.compile("(?m)^" + Pattern.quote(fence) + "\n(.*?)^```$", Pattern.DOTALL).matcher(page);
        while (block.find()) {
            if (Stream.of(marks).allMatch(block.group(1)::contains)) {
                return block.group(1);
            }
        }
        throw new AssertionError("docs/actions-and-drain.md has no " + fence + " block with " + List.of(marks));
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
