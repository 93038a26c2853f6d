package io.github.scheduledeventsbridge.packaging;

import io.github.scheduledeventsbridge.config.ConfigKeys;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaging files, checked by the tools made for them (installed by bin/install-prerequisites):
 * a missing tool fails the test rather than skipping it.
 */
class PackagingLintTest {

    private static final Path UNIT = Path.of("packaging/systemd/scheduled-events-bridge.service");
    private static final Path ACTION_SOCKET = Path.of("packaging/systemd/scheduled-events-bridge-action.socket");
    private static final Path ACTION_UNIT = Path.of("packaging/systemd/scheduled-events-bridge-action@.service");
    private static final Path SYSUSERS = Path.of("packaging/sysusers/scheduled-events-bridge.conf");

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + " said:\n" + output).isZero();
        return output;
    }

    /**
     * In a scratch root as the .deb and the .tar.gz lay it out (a stand-in for the bundled runtime's java, this
     * machine's targets): systemd-analyze checks that ExecStart names an executable, so the unit must point at it.
     */
    @Test
    void theSystemdUnitVerifies(@TempDir Path root) throws Exception {
        Path java = Files.createDirectories(root.resolve("opt/scheduled-events-bridge/runtime/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path units = Files.createDirectories(root.resolve("usr/lib/systemd/system"));
        try (Stream<Path> targets = Files.list(Path.of("/lib/systemd/system"))) {
            for (Path target : targets.filter(p -> p.toString().endsWith(".target")).toList()) {
                Files.copy(target, units.resolve(target.getFileName()));
            }
        }
        Path system = Files.createDirectories(root.resolve("etc/systemd/system"));
        for (Path unit : List.of(UNIT, ACTION_SOCKET, ACTION_UNIT)) {
            Files.copy(unit, system.resolve(unit.getFileName()));
        }
        // The command unit is a template: an instance, as the socket starts one per connection.
        List<String> installed = List.of("/etc/systemd/system/" + UNIT.getFileName(), "/etc/systemd/system/" + ACTION_SOCKET.getFileName(),
                "/etc/systemd/system/scheduled-events-bridge-action@0-1.service");
        for (String unit : installed) {
            run(List.of("systemd-analyze", "verify", "--root=" + root, unit));
        }
        // The same root without the runtime: the check really looks inside it.
        Files.delete(java);
        for (String unit : List.of(installed.get(0), installed.get(2))) {
            Process without = new ProcessBuilder("systemd-analyze", "verify", "--root=" + root, unit).redirectErrorStream(true).start();
            String said = new String(without.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(without.waitFor()).as(unit).isNotZero();
            assertThat(said).contains("/opt/scheduled-events-bridge/runtime/bin/java");
        }
    }

    /** systemd-sysusers itself reads the file, into a scratch root: the two users, system users without a login. */
    @Test
    void theSysusersFileMakesTheAgentsAndTheCommandsUsers(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("etc"));
        run(List.of("systemd-sysusers", "--root=" + root, SYSUSERS.toAbsolutePath().toString()));
        List<String> users = Files.readAllLines(root.resolve("etc/passwd")).stream()
                .map(line -> line.split(":")).map(f -> f[0] + ":" + f[5] + ":" + f[6] + ":" + (Integer.parseInt(f[2]) < 1000)).toList();
        assertThat(users).containsExactly("scheduled-events-bridge:/var/lib/scheduled-events-bridge:/usr/sbin/nologin:true",
                "scheduled-events-bridge-action:/var/lib/scheduled-events-bridge-action:/usr/sbin/nologin:true");
        assertThat(Files.readString(root.resolve("etc/group"))).contains("scheduled-events-bridge:", "scheduled-events-bridge-action:");
    }

    @Test
    void theUnitRunsTheBundledRuntimeWithTheConfigurationFile() throws Exception {
        assertThat(Files.readString(UNIT)).contains("ExecStart=/opt/scheduled-events-bridge/runtime/bin/java @/etc/scheduled-events-bridge/jvm.options ",
                "-Dbridge.config=/etc/scheduled-events-bridge/bridge.properties",
                "-jar /opt/scheduled-events-bridge/scheduled-events-bridge.jar",
                "EnvironmentFile=-/etc/scheduled-events-bridge/environment",
                // The agent is told where that file is, to warn when every local user can read it.
                "Environment=BRIDGE_ENVIRONMENT_FILE=/etc/scheduled-events-bridge/environment\n");
        assertThat(ConfigKeys.packaged().byEnvironmentName("BRIDGE_ENVIRONMENT_FILE")).isPresent();
    }

    /** The packaged configuration file: only comments, or keys the agent knows (it refuses any other). */
    @Test
    void theShippedConfigurationFileHasOnlyKnownKeys() throws Exception {
        ConfigKeys keys = ConfigKeys.packaged();
        for (String line : Files.readAllLines(Path.of("packaging/etc/bridge.properties"))) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                assertThat(keys.isKnown(trimmed.substring(0, trimmed.indexOf('=')))).as(line).isTrue();
            } else if (trimmed.startsWith("#bridge.")) {
                assertThat(keys.isKnown(trimmed.substring(1, trimmed.indexOf('=')))).as(line).isTrue();
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theCloudInitExampleIsCloudConfigThatWritesKnownSettingsAndEnablesTheUnit() throws Exception {
        Path file = Path.of("packaging/cloud-init/vmss.yaml");
        String text = Files.readString(file);
        assertThat(text).startsWith("#cloud-config\n");
        Map<String, Object> config = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
        assertThat(config).containsOnlyKeys("write_files", "runcmd");
        ConfigKeys keys = ConfigKeys.packaged();
        Map<String, String> written = new java.util.HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) config.get("write_files")) {
            written.put((String) entry.get("path"), (String) entry.get("content"));
        }
        assertThat(written).containsOnlyKeys("/etc/scheduled-events-bridge/bridge.properties", "/etc/scheduled-events-bridge/environment");
        for (String line : written.get("/etc/scheduled-events-bridge/bridge.properties").split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertThat(keys.isKnown(line.substring(0, line.indexOf('=')))).as(line).isTrue();
            }
        }
        for (String line : written.get("/etc/scheduled-events-bridge/environment").split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertThat(keys.byEnvironmentName(line.substring(0, line.indexOf('=')))).as(line).isPresent();
            }
        }
        String script = cloudInitScript(config);
        assertThat(script).contains("dir=$(mktemp -d)", "sha256sum -c --strict -", "--force-confold \"$dir/scheduled-events-bridge.deb\"",
                "systemctl enable --now scheduled-events-bridge.service").doesNotContain("/tmp");
    }

    /** The one runcmd entry: {@code sh -c SCRIPT}, which downloads, verifies and installs the .deb. */
    @SuppressWarnings("unchecked")
    private static String cloudInitScript(Map<String, Object> config) {
        List<List<String>> runcmd = (List<List<String>>) config.get("runcmd");
        assertThat(runcmd).hasSize(1);
        assertThat(runcmd.get(0)).hasSize(3).startsWith("sh", "-c");
        return runcmd.get(0).get(2);
    }

    /**
     * The cloud-init script as the instance runs it, against a .deb served on loopback: a download whose SHA-256 is
     * not the one written beside the URL goes no further than the check; the right one reaches apt-get. apt-get and
     * systemctl are not on the PATH given (only the tools the script needs before them), so nothing is installed on
     * this machine: reaching apt-get shows as "not found". Either way the private download directory is gone after.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theCloudInitScriptInstallsOnlyADebWhoseChecksumMatches(@TempDir Path work) throws Exception {
        byte[] deb = "not really a Debian package, but the bytes the checksum is of".getBytes(StandardCharsets.UTF_8);
        String sha256 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(deb));
        String script = cloudInitScript((Map<String, Object>) new Load(LoadSettings.builder().build())
                .loadFromString(Files.readString(Path.of("packaging/cloud-init/vmss.yaml"))));
        Path bin = Files.createDirectories(work.resolve("bin"));
        for (String tool : List.of("sh", "curl", "mktemp", "rm", "sha256sum")) {
            Files.createSymbolicLink(bin.resolve(tool), Path.of(run(List.of("sh", "-c", "command -v " + tool)).strip()));
        }
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, deb.length);
            try (exchange) {
                exchange.getResponseBody().write(deb);
            }
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/releases/scheduled-events-bridge_0.1.0_amd64.deb?sv=x&sig=y";
            for (String given : List.of("0".repeat(64), sha256)) {
                Path tmp = Files.createDirectories(work.resolve("tmp-" + given.substring(0, 8)));
                String filled = script.replaceFirst("url='<[^']*>'", "url='" + url + "'")
                        .replaceFirst("sha256='<[^']*>'", "sha256='" + given + "'");
                assertThat(filled).doesNotContain("<");
                ProcessBuilder builder = new ProcessBuilder(bin.resolve("sh").toString(), "-c", filled).redirectErrorStream(true);
                builder.environment().put("PATH", bin.toString());
                builder.environment().put("TMPDIR", tmp.toString());
                Process process = builder.start();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
                if (given.equals(sha256)) {
                    assertThat(output).contains("scheduled-events-bridge.deb: OK").contains("apt-get").contains("not found");
                    assertThat(process.exitValue()).isEqualTo(127);
                } else {
                    assertThat(output).contains("scheduled-events-bridge.deb: FAILED").doesNotContain("apt-get");
                    assertThat(process.exitValue()).isEqualTo(1);
                }
                try (Stream<Path> left = Files.list(tmp)) {
                    assertThat(left).as("the download directory is removed").isEmpty();
                }
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void theSystemdUnitIsHardenedAsDocumented() throws Exception {
        String unit = Files.readString(UNIT);
        assertThat(unit).contains("User=scheduled-events-bridge\n", "DynamicUser=no", "StateDirectory=scheduled-events-bridge",
                "ProtectSystem=strict", "Restart=on-failure", "NoNewPrivileges=yes", "RestartPreventExitStatus=2",
                "SystemCallFilter=@system-service", "ProcSubset=pid", "ProtectProc=invisible", "CapabilityBoundingSet=\n",
                "Wants=scheduled-events-bridge-action.socket",
                "Environment=BRIDGE_ACTION_HOST_SOCKET=/run/scheduled-events-bridge-action.sock");
    }

    /** Commands: their own user and limits, the whole tree killed with the host, netlink for `ss`; only the agent's group connects. */
    @Test
    void commandsRunInUnitsOfTheirOwnBehindASocketOnlyTheAgentMayUse() throws Exception {
        assertThat(Files.readString(ACTION_SOCKET)).contains("ListenStream=/run/scheduled-events-bridge-action.sock", "Accept=yes",
                "SocketUser=root", "SocketGroup=scheduled-events-bridge\n", "SocketMode=0660", "RemoveOnStop=yes");
        assertThat(Files.readString(ACTION_UNIT)).contains("User=scheduled-events-bridge-action", "DynamicUser=no",
                "StandardInput=socket", "StandardOutput=socket", "KillMode=control-group", "MemoryMax=", "TasksMax=",
                "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK", "SystemCallFilter=@system-service",
                "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectProc=invisible",
                "-cp /opt/scheduled-events-bridge/scheduled-events-bridge.jar io.github.scheduledeventsbridge.actionhost.ActionHost")
;
        assertThat(Files.readAllLines(ACTION_UNIT)).filteredOn(line -> !line.startsWith("#"))
                .as("the agent's secrets are not the commands'").noneMatch(line -> line.contains("EnvironmentFile")
                        || line.contains("/etc/scheduled-events-bridge/environment") || line.contains("LoadCredential"));
    }

    /** The JDK takes the file as an @argfile: a typo there would stop every launcher. */
    @Test
    void theJvmOptionsFileIsAnArgfileTheJdkAccepts() {
        assertThat(JvmOptions.read()).isNotEmpty().allSatisfy(option -> assertThat(option).startsWith("-"));
        assertThat(JvmOptions.asTheJvmReportsThem(java(), JvmOptions.FILE)).isNotEmpty();
    }

    /** Flags that shape the JVM (GC, heap, stacks, JIT…): written as -XX:, -Xm… or -Xs…; -Xlog is left out. */
    private static final Pattern JVM_FLAG = Pattern.compile("(?<![\\w-])-X(?:X:[+-]?(\\w+)|[ms]\\w*)");

    /**
     * Every launcher starts the agent with the argfile and adds no JVM flag of its own, but for its own job: the
     * class-data-sharing archive (made or used), a log, the flags report of a benchmark. ({@code -J-XX:…} flags are for
     * jcmd's own JVM, not the agent's.)
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "Dockerfile                                        | bin/java\", \"@/opt/scheduled-events-bridge/jvm.options\"",
            "packaging/systemd/scheduled-events-bridge.service | java @/etc/scheduled-events-bridge/jvm.options ",
            "bin/create-cds-archive                            | exec \"$java\" \"@$jvm_options\" ",
            "bin/try-on-simulator                              | java @packaging/jvm.options ",
            "bench/benchlib.py                                 | os.path.join(REPO, \"packaging\", \"jvm.options\")",
            "bench/harness.py                                  | benchlib.agent_jvm_options(",
            "bench/approval_latency.py                         | benchlib.agent_jvm_options(",
            "bench/soak.py                                     | benchlib.agent_jvm_options(",
            "bench/footprint.py                                | benchlib.agent_jvm_options(",
            "bench/run.sh                                      | packaging/jvm.options",
            "bench/soak.sh                                     | packaging/jvm.options",
    })
    void everyLauncherReadsTheJvmOptionsFileAndAddsNoJvmFlagOfItsOwn(String file, String readsTheFile) throws Exception {
        String text = Files.readString(Path.of(file));
        assertThat(text).as(file + " reads the argfile").contains(readsTheFile);
        List<String> own = new java.util.ArrayList<>();
        Matcher flag = JVM_FLAG.matcher(text);
        while (flag.find()) {
            if (!List.of("SharedArchiveFile", "ArchiveClassesAtExit", "PrintFlagsFinal", "PrintCommandLineFlags",
                    "NativeMemoryTracking").contains(String.valueOf(flag.group(1)))) {
                own.add(flag.group());
            }
        }
        assertThat(own).as(file + ": JVM flags outside packaging/jvm.options").isEmpty();
    }

    /**
     * bin/create-cds-archive as the .deb and the .tar.gz install it (runtime/ beside bin/: the options in
     * /etc/scheduled-events-bridge, under DPKG_ROOT here), as the Dockerfile does (bin/ next to jvm.options), in the
     * repository and with JVM_OPTIONS: a flag the JVM refuses, in the file it should read, stops the training run at
     * once, which shows that it read that file.
     */
    @Test
    void theCdsTrainingRunReadsTheJvmOptionsNextToItOrFromJvmOptions(@TempDir Path opt) throws Exception {
        Path script = Files.createDirectories(opt.resolve("bin")).resolve("create-cds-archive");
        Files.copy(Path.of("bin/create-cds-archive"), script);
        // A jar the launcher accepts (it reads the manifest before it starts the JVM), never run.
        Path jar = opt.resolve("agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "NeverRun");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
        Files.writeString(opt.resolve("jvm.options"), "# installed\n-XX:+NextToTheScript\n");
        assertThat(training(script, jar, Map.of())).contains("Unrecognized VM option 'NextToTheScript'");
        // Installed with its runtime: /etc/scheduled-events-bridge/jvm.options, the file the unit reads.
        Files.createDirectories(opt.resolve("runtime"));
        Path root = Files.createDirectories(opt.resolve("root/etc/scheduled-events-bridge"));
        Files.writeString(root.resolve("jvm.options"), "-XX:+InEtc\n");
        assertThat(training(script, jar, Map.of("DPKG_ROOT", opt.resolve("root").toString())))
                .contains("Unrecognized VM option 'InEtc'");
        // ... unless there is none there (the .tar.gz before INSTALL.md's cp): the shipped one next to bin/ again.
        Files.delete(root.resolve("jvm.options"));
        assertThat(training(script, jar, Map.of("DPKG_ROOT", opt.resolve("root").toString())))
                .contains("Unrecognized VM option 'NextToTheScript'");
        Files.delete(opt.resolve("runtime"));
        Path other = Files.writeString(opt.resolve("other.options"), "-XX:+FromTheEnvironment\n");
        assertThat(training(script, jar, Map.of("JVM_OPTIONS", other.toString())))
                .contains("Unrecognized VM option 'FromTheEnvironment'");
        // In the repository (no ../jvm.options next to bin/): packaging/jvm.options, which the JVM accepts.
        Files.delete(opt.resolve("jvm.options"));
        Files.createDirectories(opt.resolve("packaging"));
        Files.writeString(opt.resolve("packaging/jvm.options"), "-XX:+FromTheRepository\n");
        assertThat(training(script, jar, Map.of())).contains("Unrecognized VM option 'FromTheRepository'");
    }

    private static String training(Path script, Path jar, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(script.toString(), jar.toString(), jar.resolveSibling("agent.jsa").toString())
                .redirectErrorStream(true);
        builder.environment().put("JAVA", java());
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isEqualTo(1);
        return output;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void bothLaunchersUseTheClassDataSharingArchive() throws Exception {
        assertThat(Files.readString(Path.of("Dockerfile")))
                .contains("create-cds-archive", "-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa");
        assertThat(Files.readString(UNIT))
                .contains("-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa");
    }

    @Test
    void theDockerfilePassesTheLinter() throws Exception {
        // Its rules (packaging/docker/.dockerfilelintrc): ARG-named base images are checked above, not by the linter.
        assertThat(run(List.of("dockerfilelint", "-c", "packaging/docker", "Dockerfile"))).contains("Issues: None found");
    }

    @Test
    void theImageRunsAsNonRootWithAStateVolumeAndAHealthCheck() throws Exception {
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        assertThat(dockerfile).contains("ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17", "FROM ${BUILD_IMAGE} AS build",
                "ARG RUNTIME_IMAGE=debian:bookworm-slim", "FROM ${RUNTIME_IMAGE}", "USER 10001",
                "VOLUME [\"/var/lib/scheduled-events-bridge\"]", "HEALTHCHECK",
                "COPY packaging/jvm.options /opt/scheduled-events-bridge/jvm.options");
    }
}
