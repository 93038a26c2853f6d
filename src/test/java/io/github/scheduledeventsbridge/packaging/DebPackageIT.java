package io.github.scheduledeventsbridge.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release artifacts of {@code mvn -B package}, as an operator gets them: the .deb installed with dpkg into a
 * fresh root (its own dpkg database; maintainer scripts run with DPKG_ROOT, so nothing on this machine changes),
 * the agent started from the installed unit's ExecStart on the bundled runtime, then upgrade, remove and purge;
 * and the .tar.gz's contents.
 */
class DebPackageIT {

    private static final Path TARGET = Path.of("target");
    private static final String VERSION = System.getProperty("seb.test.version", "0.1.0-SNAPSHOT");
    private static final String DEB_VERSION = VERSION.replace("-SNAPSHOT", "~SNAPSHOT");
    private static final String OPT = "opt/scheduled-events-bridge";
    private static final String CONF = "etc/scheduled-events-bridge/bridge.properties";
    private static final String UNIT = "lib/systemd/system/scheduled-events-bridge.service";
    private static final String JVM_OPTIONS = "etc/scheduled-events-bridge/jvm.options";

    @TempDir
    Path dir;

    private static String run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + " said:\n" + output).isZero();
        return output;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        return run(List.of(command), Map.of());
    }

    private static Path artifact(String glob) throws IOException {
        try (Stream<Path> files = Files.list(TARGET)) {
            List<Path> found = files.filter(f -> TARGET.getFileSystem().getPathMatcher("glob:" + glob)
                    .matches(f.getFileName())).toList();
            assertThat(found).as("target/" + glob + " (mvn -B package makes it)").hasSize(1);
            return found.get(0).toAbsolutePath();
        }
    }

    /**
     * dpkg on the scratch root, with a systemctl first on the PATH that only records being called: under DPKG_ROOT the
     * maintainer scripts must leave this machine's systemd alone (where systemd runs the machine; where it does not,
     * their "[ -d /run/systemd/system ]" guard keeps them from calling it too, and their systemd branch goes unrun).
     */
    private String dpkg(Path root, String... args) throws IOException, InterruptedException {
        Path stubs = dir.resolve("stubs");
        if (!Files.exists(stubs.resolve("systemctl"))) {
            Files.createDirectories(stubs);
            Files.writeString(stubs.resolve("systemctl"), "#!/bin/sh\necho \"$@\" >> " + dir.resolve("systemctl-calls") + "\n");
            Files.setPosixFilePermissions(stubs.resolve("systemctl"), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        List<String> command = new ArrayList<>(List.of("dpkg", "--root=" + root, "--log=/dev/null",
                "--force-script-chrootless", "--force-not-root", "--force-depends"));
        command.addAll(Arrays.asList(args));
        return run(command, Map.of("PATH", stubs + ":" + System.getenv("PATH")));
    }

    private static Path freshRoot(Path root) throws IOException {
        Files.createDirectories(root.resolve("var/lib/dpkg/info"));
        Files.createDirectories(root.resolve("var/lib/dpkg/updates"));
        Files.writeString(root.resolve("var/lib/dpkg/status"), "");
        Files.writeString(root.resolve("var/lib/dpkg/available"), "");
        return root;
    }

    @Test
    void theDebInstallsRunsOnItsOwnRuntimeAndKeepsConfigurationAndStateUntilPurge() throws Exception {
        Path deb = artifact("scheduled-events-bridge_*_amd64.deb");
        assertThat(deb.getFileName().toString()).isEqualTo("scheduled-events-bridge_" + DEB_VERSION + "_amd64.deb");

        // Metadata and maintainer scripts, as dpkg reads them.
        assertThat(run("dpkg-deb", "-f", deb.toString(), "Package", "Version", "Architecture", "Depends"))
                .contains("Package: scheduled-events-bridge", "Version: " + DEB_VERSION, "Architecture: amd64",
                        "libc6 (>= 2.34)", "zlib1g")
                .doesNotContain("openjdk", "java");
        Path control = dir.resolve("control");
        run("dpkg-deb", "-e", deb.toString(), control.toString());
        // The JVM options: an operator's -Xmx survives upgrades. Not bridge.properties: the postinst copies it where
        // there is none, so dpkg has nothing to ask about an operator's file that was there first.
        assertThat(Files.readAllLines(control.resolve("conffiles"))).containsExactly("/" + JVM_OPTIONS);
        for (String script : List.of("postinst", "prerm", "postrm")) {
            assertThat(Files.readString(control.resolve(script)))
                    .as(script).startsWith("#!/bin/sh").contains("set -e", "$DPKG_ROOT", "[ -d /run/systemd/system ]");
        }
        assertThat(Files.readString(control.resolve("preinst"))).startsWith("#!/bin/sh").contains("set -e", "mv_conffile");
        assertThat(Files.readString(control.resolve("postrm")))
                .as("state is deleted on purge only").containsPattern("(?s)if \\[ \"\\$1\" = purge \\]; then.*var/lib/scheduled-events-bridge");

        // As cloud-init does: the operator's settings are there before the package; dpkg, with no terminal to ask
        // on and no --force-confold, keeps them.
        Path root = freshRoot(dir.resolve("root"));
        Files.createDirectories(root.resolve(CONF).getParent());
        String operatorSettings = "# the operator's\nbridge.filter.resources=all\n";
        Files.writeString(root.resolve(CONF), operatorSettings);
        String installed = dpkg(root, "-i", deb.toString());
        assertThat(installed).contains("Setting up scheduled-events-bridge (" + DEB_VERSION + ")",
                "AppCDS archive " + root.resolve(OPT + "/scheduled-events-bridge.jsa"));
        assertThat(dpkg(root, "-s", "scheduled-events-bridge")).contains("Status: install ok installed", "Version: " + DEB_VERSION);
        assertThat(Files.readString(root.resolve(CONF))).isEqualTo(operatorSettings);
        Path java = root.resolve(OPT + "/runtime/bin/java");
        assertThat(java).isExecutable();
        assertThat(Files.size(root.resolve(OPT + "/scheduled-events-bridge.jsa"))).isGreaterThan(1_000_000);
        assertThat(root.resolve(JVM_OPTIONS)).hasSameTextualContentAs(JvmOptions.FILE);
        assertThat(Files.getPosixFilePermissions(root.resolve(JVM_OPTIONS))).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        // systemd-sysusers made the two system users in the root (not on this machine).
        assertThat(Files.readString(root.resolve("etc/passwd")))
                .contains("scheduled-events-bridge:x:", "scheduled-events-bridge-action:x:");
        // What the docs tell an operator to use is installed: the approval client, example commands ready to run,
        // the recipes that let commands act, the monitoring files.
        for (String tool : List.of("bin/approve", "examples/actions/checkpoint.sh", "examples/actions/drain-behind-load-balancer.sh",
                "examples/actions/systemd-stop-start.sh")) {
            assertThat(root.resolve(OPT + "/" + tool)).as(tool).isExecutable().hasSameTextualContentAs(Path.of(
                    tool.startsWith("bin/") ? tool : tool.replace("examples/actions/", "config/actions/")));
        }
        assertThat(root.resolve(OPT + "/examples/polkit/50-scheduled-events-bridge-myapp.rules"))
                .hasSameTextualContentAs(Path.of("packaging/examples/polkit/50-scheduled-events-bridge-myapp.rules"));
        assertThat(root.resolve(OPT + "/examples/systemd/scheduled-events-bridge-action@.service.d/myapp.conf"))
                .hasSameTextualContentAs(Path.of("packaging/examples/systemd/scheduled-events-bridge-action@.service.d/myapp.conf"));
        for (String file : List.of("alerts.yml", "alerts.test.yml", "grafana-dashboard.json")) {
            assertThat(root.resolve(OPT + "/examples/monitoring/" + file)).hasSameTextualContentAs(Path.of("packaging/monitoring/" + file));
        }
        assertThat(root.resolve("usr/lib/sysusers.d/scheduled-events-bridge.conf")).exists();
        assertThat(root.resolve("lib/systemd/system/scheduled-events-bridge-action.socket")).exists();
        assertThat(root.resolve("lib/systemd/system/scheduled-events-bridge-action@.service")).exists();

        // The bundled runtime: the modules the fixed list promises, trusted CAs for HTTPS, the version.
        assertThat(run(java.toString(), "--list-modules"))
                .contains("java.net.http", "jdk.crypto.ec", "jdk.management", "jdk.httpserver", "java.security.sasl")
                .doesNotContain("jdk.compiler", "java.compiler");
        assertThat(run(root.resolve(OPT + "/runtime/bin/keytool").toString(), "-list", "-cacerts", "-storepass", "changeit"))
                .containsPattern("Your keystore contains [1-9][0-9]+ entries");
        assertThat(run(java.toString(), "-jar", root.resolve(OPT + "/scheduled-events-bridge.jar").toString(), "--version").strip())
                .isEqualTo("scheduled-events-bridge " + VERSION);

        // The installed unit verifies (against this machine's targets) and its ExecStart runs the agent.
        Path units = Files.createDirectories(root.resolve("usr/lib/systemd/system"));
        try (Stream<Path> targets = Files.list(Path.of("/lib/systemd/system"))) {
            for (Path target : targets.filter(p -> p.toString().endsWith(".target")).toList()) {
                Files.copy(target, units.resolve(target.getFileName()));
            }
        }
        run("systemd-analyze", "verify", "--root=" + root, "/" + UNIT);
        runTheAgentAsTheUnitDoes(root);

        // Upgrade (the same version again): the operator's edits and the state stay, the archive is made anew.
        Path state = root.resolve("var/lib/scheduled-events-bridge/state.json");
        Files.createDirectories(state.getParent());
        Files.writeString(state, "{\"kept\":true}");
        String edited = operatorSettings + "bridge.approval.port=8090\n";
        Files.writeString(root.resolve(CONF), edited);
        String tuned = Files.readString(root.resolve(JVM_OPTIONS)) + "# the operator's\n-Xmx128m\n";
        Files.writeString(root.resolve(JVM_OPTIONS), tuned);
        assertThat(dpkg(root, "-i", deb.toString())).contains("Setting up scheduled-events-bridge", "AppCDS archive");
        assertThat(Files.readString(root.resolve(CONF))).isEqualTo(edited);
        assertThat(root.resolve(JVM_OPTIONS)).hasContent(tuned);
        assertThat(state).hasContent("{\"kept\":true}");

        // Remove: the program goes (the postinst's archive too), configuration (the JVM options too) and state stay.
        dpkg(root, "-r", "scheduled-events-bridge");
        assertThat(dpkg(root, "-s", "scheduled-events-bridge")).contains("Status: deinstall ok config-files");
        assertThat(root.resolve(OPT)).doesNotExist();
        assertThat(root.resolve(JVM_OPTIONS)).hasContent(tuned);
        assertThat(root.resolve(UNIT)).doesNotExist();
        assertThat(Files.readString(root.resolve(CONF))).isEqualTo(edited);
        assertThat(state).hasContent("{\"kept\":true}");

        // Purge: configuration (the operator's commands in actions/ too) and state go.
        Files.writeString(root.resolve("etc/scheduled-events-bridge/environment"), "BRIDGE_WEBHOOK_SECRET=x\n");
        Files.writeString(Files.createDirectories(root.resolve("etc/scheduled-events-bridge/actions")).resolve("mine.sh"), "#!/bin/sh\n");
        dpkg(root, "-P", "scheduled-events-bridge");
        assertThat(root.resolve("etc/scheduled-events-bridge")).doesNotExist();
        assertThat(root.resolve("usr/lib/sysusers.d/scheduled-events-bridge.conf")).doesNotExist();
        assertThat(root.resolve(OPT)).doesNotExist();
        assertThat(root.resolve("var/lib/scheduled-events-bridge")).doesNotExist();
        assertThat(dir.resolve("systemctl-calls")).as("systemctl called under DPKG_ROOT").doesNotExist();
    }

    /**
     * Earlier builds installed the JVM options as a conffile under /opt: upgrading from one moves an operator's edited
     * copy to /etc (the new default kept beside it as jvm.options.dpkg-new) and replaces an unedited one. They had
     * bridge.properties as a conffile too: it stays as it was.
     */
    @Test
    void anUpgradeFromABuildWithTheJvmOptionsUnderOptMovesTheOperatorsEditToEtc() throws Exception {
        Path deb = artifact("scheduled-events-bridge_*_amd64.deb");
        Path oldBuild = oldLayoutBuild();
        String tuned = Files.readString(JvmOptions.FILE) + "# the operator's\n-Xmx128m\n";
        for (boolean edited : List.of(true, false)) {
            Path root = freshRoot(dir.resolve(edited ? "edited" : "unedited"));
            dpkg(root, "-i", oldBuild.toString());
            assertThat(root.resolve(OPT + "/jvm.options")).hasSameTextualContentAs(JvmOptions.FILE);
            String settings = Files.readString(Path.of("packaging/etc/bridge.properties")) + (edited ? "bridge.filter.resources=own\n" : "");
            if (edited) {
                Files.writeString(root.resolve(OPT + "/jvm.options"), tuned);
                Files.writeString(root.resolve(CONF), settings);
            }
            assertThat(dpkg(root, "-i", deb.toString())).contains("Setting up scheduled-events-bridge (" + DEB_VERSION + ")");
            assertThat(root.resolve(OPT + "/jvm.options")).doesNotExist();
            // bridge.properties was a conffile then: dpkg leaves it, edited or not, and the postinst keeps it.
            assertThat(root.resolve(CONF)).hasContent(settings);
            if (edited) {
                assertThat(root.resolve(JVM_OPTIONS)).hasContent(tuned);
                assertThat(root.resolve(JVM_OPTIONS + ".dpkg-new")).hasSameTextualContentAs(JvmOptions.FILE);
            } else {
                assertThat(root.resolve(JVM_OPTIONS)).hasSameTextualContentAs(JvmOptions.FILE);
                assertThat(root.resolve(JVM_OPTIONS + ".dpkg-new")).doesNotExist();
            }
            // The old name may stay in dpkg's database, marked obsolete, but no longer as a conffile of the package.
            assertThat(dpkg(root, "-s", "scheduled-events-bridge")).containsPattern(" /" + JVM_OPTIONS + " [0-9a-f]{32}\n")
                    .doesNotContainPattern(" /" + OPT + "/jvm.options [0-9a-f]{32}\n");
        }
    }

    /**
     * A stand-in for a build before the moves: the package at an older version, its JVM options a conffile in /opt,
     * bridge.properties a conffile in /etc.
     */
    private Path oldLayoutBuild() throws Exception {
        Path tree = dir.resolve("old-build");
        Files.createDirectories(tree.resolve("DEBIAN"));
        Files.writeString(tree.resolve("DEBIAN/control"), "Package: scheduled-events-bridge\nVersion: 0.0.9\n"
                + "Architecture: amd64\nMaintainer: test <test@example.com>\nDescription: the layout before the move\n");
        Files.writeString(tree.resolve("DEBIAN/conffiles"), "/" + OPT + "/jvm.options\n/" + CONF + "\n");
        Files.copy(JvmOptions.FILE, Files.createDirectories(tree.resolve(OPT)).resolve("jvm.options"));
        Files.copy(Path.of("packaging/etc/bridge.properties"), Files.createDirectories(tree.resolve(CONF).getParent()).resolve("bridge.properties"));
        Path deb = dir.resolve("scheduled-events-bridge_0.0.9_amd64.deb");
        run("dpkg-deb", "--root-owner-group", "--build", tree.toString(), deb.toString());
        return deb;
    }

    /**
     * ExecStart of the installed unit, with paths into the root, plus the simulator, a scratch state directory and the
     * JVM's report of its flags: those of the installed jvm.options, all of them.
     */
    private void runTheAgentAsTheUnitDoes(Path root) throws Exception {
        String unit = Files.readString(root.resolve(UNIT)).replace("\\\n", " ");
        Matcher execStart = Pattern.compile("(?m)^ExecStart=(.*)$").matcher(unit);
        assertThat(execStart.find()).isTrue();
        List<String> command = new ArrayList<>();
        for (String word : execStart.group(1).trim().split("\\s+")) {
            String rooted = word.replace("/opt/", root + "/opt/").replace("/etc/", root + "/etc/");
            if (word.equals("-jar")) {
                command.addAll(List.of("-Xlog:class+load=info", "-XX:+PrintCommandLineFlags", "-Dbridge.simulator.enabled=true", "-Dbridge.simulator.speed=600",
                        "-Dbridge.management.port=0", "-Dbridge.state.dir=" + dir.resolve("state")));
            }
            command.add(rooted);
        }
        assertThat(command.get(0)).isEqualTo(root + "/opt/scheduled-events-bridge/runtime/bin/java");
        assertThat(command).contains("@" + root + "/" + JVM_OPTIONS, "-Dbridge.config=" + root + "/" + CONF,
                "-XX:SharedArchiveFile=" + root + "/" + OPT + "/scheduled-events-bridge.jsa");

        Path log = dir.resolve("agent.log");
        Process agent = new ProcessBuilder(command).directory(Files.createDirectories(dir.resolve("work")).toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> !agent.isAlive() || Files.readString(log).contains(" transitions - Scheduled "));
            String output = Files.readString(log);
            assertThat(agent.isAlive()).as(output).isTrue();
            assertThat(output).doesNotContain("Unable to use shared archive")
                    .contains("io.github.scheduledeventsbridge.transitions.TransitionDetector source: shared objects file (top)");
            assertThat(JvmOptions.reportedFlags(output))
                    .containsAll(JvmOptions.asTheJvmReportsThem(command.get(0), root.resolve(JVM_OPTIONS)));
            Matcher management = Pattern.compile("Management server on http://127\\.0\\.0\\.1:(\\d+)").matcher(output);
            assertThat(management.find()).as(output).isTrue();
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + management.group(1);
            HttpResponse<String> live = http.send(HttpRequest.newBuilder(URI.create(base + "/observe/health/live")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(live.statusCode()).isEqualTo(200);
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("bridge_transitions_total", "jvm_memory_used_bytes");
        } finally {
            agent.destroy();
            assertThat(agent.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(agent.exitValue()).as(Files.readString(log)).isEqualTo(143);
    }

    @Test
    void theTarballHoldsTheRuntimeTheJarTheUnitAndTheConfiguration() throws Exception {
        Path tarball = artifact("scheduled-events-bridge-*-linux-x64.tar.gz");
        assertThat(tarball.getFileName().toString()).isEqualTo("scheduled-events-bridge-" + VERSION + "-linux-x64.tar.gz");
        String listing = run("tar", "-tzvf", tarball.toString());
        String top = "scheduled-events-bridge-" + VERSION + "/";
        assertThat(listing).containsPattern("-rwxr-xr-x .* " + Pattern.quote(top + "runtime/bin/java") + "\n")
                .containsPattern("-rwxr-xr-x .* " + Pattern.quote(top + "bin/create-cds-archive") + "\n")
                .containsPattern("-rw-r--r-- .* " + Pattern.quote(top + "jvm.options") + "\n")
                .contains(top + "runtime/lib/modules", top + "runtime/lib/server/libjvm.so", top + "runtime/lib/server/classes.jsa",
                        top + "scheduled-events-bridge.jar", top + "INSTALL.md", top + "README.md",
                        top + "docs/install.md", top + "docs/troubleshooting.md")
                .doesNotContain("classes_nocoops.jsa");

        Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
        run("tar", "-xzf", tarball.toString(), "-C", unpacked.toString(), "--strip-components=1");
        for (String unit : List.of("scheduled-events-bridge.service", "scheduled-events-bridge-action.socket",
                "scheduled-events-bridge-action@.service")) {
            assertThat(unpacked.resolve(unit)).hasSameTextualContentAs(Path.of("packaging/systemd/" + unit));
        }
        assertThat(unpacked.resolve("scheduled-events-bridge.sysusers.conf"))
                .hasSameTextualContentAs(Path.of("packaging/sysusers/scheduled-events-bridge.conf"));
        assertThat(unpacked.resolve("bin/approve")).isExecutable();
        assertThat(unpacked.resolve("examples/actions/systemd-stop-start.sh")).isExecutable();
        assertThat(unpacked.resolve("bridge.properties")).hasSameTextualContentAs(Path.of("packaging/etc/bridge.properties"));
        assertThat(unpacked.resolve("jvm.options")).hasSameTextualContentAs(JvmOptions.FILE);
        assertThat(run(unpacked.resolve("runtime/bin/java").toString(), "-jar",
                unpacked.resolve("scheduled-events-bridge.jar").toString(), "--version").strip())
                .isEqualTo("scheduled-events-bridge " + VERSION);

        // With its JVM options, the shipped (all commented) configuration file passes the agent's checks: it starts polling.
        Path log = dir.resolve("tarball-agent.log");
        Process agent = new ProcessBuilder(unpacked.resolve("runtime/bin/java").toString(),
                JvmOptions.argument(unpacked.resolve("jvm.options")),
                "-Dbridge.config=" + unpacked.resolve("bridge.properties"), "-Dbridge.simulator.enabled=true",
                "-Dbridge.management.port=0", "-Dbridge.state.dir=" + dir.resolve("tarball-state"),
                "-jar", unpacked.resolve("scheduled-events-bridge.jar").toString())
                .directory(unpacked.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> !agent.isAlive() || Files.readString(log).contains("Polling "));
            assertThat(agent.isAlive()).as(Files.readString(log)).isTrue();
        } finally {
            agent.destroy();
            assertThat(agent.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
