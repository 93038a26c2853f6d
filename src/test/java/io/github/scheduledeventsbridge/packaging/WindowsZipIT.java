package io.github.scheduledeventsbridge.packaging;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Windows zip that {@code mvn package} makes: what is in it, that its service host is a Windows x64 program (the
 * procrun of Apache Commons Daemon), and that its jar makes the service's options from its jvm.options as install.ps1
 * has it do on the VM. Running it as a service needs Windows: see the manual acceptance checklist.
 */
class WindowsZipIT {

    private static final String ROOT = "scheduled-events-bridge-" + System.getProperty("seb.test.version") + "/";
    private static Map<String, byte[]> entries;

    @BeforeAll
    static void readZip() throws IOException {
        Path zip = Path.of(System.getProperty("seb.test.jar")).resolveSibling(
                "scheduled-events-bridge-" + System.getProperty("seb.test.version") + "-windows-x64.zip");
        assertThat(zip).as("made by mvn package (not with -Drelease.skip=true)").isRegularFile();
        entries = new LinkedHashMap<>();
        try (ZipFile file = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : java.util.Collections.list(file.entries())) {
                try (InputStream in = file.getInputStream(entry)) {
                    entries.put(entry.getName(), in.readAllBytes());
                }
            }
        }
    }

    @Test
    void itHoldsTheJarTheServiceHostItsLicencesTheScriptsAndTheDefaultSettingsAndNothingElse() throws IOException {
        List<String> docs;
        try (var pages = Files.list(Path.of("docs"))) {
            docs = pages.filter(p -> p.toString().endsWith(".md")).map(p -> ROOT + "docs/" + p.getFileName()).toList();
        }
        assertThat(docs).contains(ROOT + "docs/windows.md", ROOT + "docs/windows-acceptance.md");
        assertThat(entries.keySet().stream().filter(n -> !n.endsWith("/") && !n.startsWith(ROOT + "docs/")))
                .containsExactlyInAnyOrder(
                ROOT + "scheduled-events-bridge.jar",
                ROOT + "scheduled-events-bridge.exe",
                ROOT + "licenses/procrun-LICENSE.txt",
                ROOT + "licenses/procrun-NOTICE.txt",
                ROOT + "install.ps1",
                ROOT + "uninstall.ps1",
                ROOT + "approve.ps1",
                ROOT + "bridge.properties",
                ROOT + "jvm.options",
                ROOT + "INSTALL.txt",
                ROOT + "README.md",
                ROOT + "LICENSE.txt",
                ROOT + "examples/prepare.ps1",
                ROOT + "examples/recover.ps1");
        assertThat(entries.keySet().stream().filter(n -> n.startsWith(ROOT + "docs/") && !n.endsWith("/")))
                .containsExactlyInAnyOrderElementsOf(docs);
        assertThat(text("licenses/procrun-LICENSE.txt")).contains("Apache License", "Version 2.0, January 2004");
        assertThat(text("licenses/procrun-NOTICE.txt")).contains("The Apache Software Foundation");
        assertThat(text("INSTALL.txt")).contains("Java 17 or newer", "winget install Microsoft.OpenJDK.17",
                ".\\install.ps1");
        assertThat(text("bridge.properties")).contains("\r\nbridge.eventlog.enabled=true\r\n");
    }

    @Test
    void itsJarIsTheOneTheBuildMade() throws Exception {
        byte[] built = Files.readAllBytes(Path.of(System.getProperty("seb.test.jar")));
        assertThat(sha256(entries.get(ROOT + "scheduled-events-bridge.jar"))).isEqualTo(sha256(built));
    }

    @Test
    void theServiceHostIsAWindowsX64ConsoleProgramAndItIsProcrun() {
        ByteBuffer exe = ByteBuffer.wrap(entries.get(ROOT + "scheduled-events-bridge.exe")).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(exe.get(0)).isEqualTo((byte) 'M');
        assertThat(exe.get(1)).isEqualTo((byte) 'Z');
        int pe = exe.getInt(0x3C);
        assertThat(exe.getInt(pe)).as("PE\\0\\0").isEqualTo(0x00004550);
        assertThat(exe.getShort(pe + 4) & 0xFFFF).as("machine: AMD64").isEqualTo(0x8664);
        int optional = pe + 24;
        assertThat(exe.getShort(optional) & 0xFFFF).as("PE32+").isEqualTo(0x20B);
        assertThat(exe.getShort(optional + 68) & 0xFFFF).as("subsystem: Windows console").isEqualTo(3);
        // Its version resource (UTF-16): procrun, not Tomcat's GUI monitor.
        String utf16 = new String(entries.get(ROOT + "scheduled-events-bridge.exe"), StandardCharsets.UTF_16LE);
        assertThat(utf16).contains("Apache Commons Daemon Service Runner");
    }

    @Test
    void textFilesHaveWindowsLineEndings() {
        for (String name : List.of("install.ps1", "uninstall.ps1", "approve.ps1", "bridge.properties", "jvm.options",
                "INSTALL.txt", "examples/prepare.ps1")) {
            String text = text(name);
            assertThat(text.replace("\r\n", "")).as(name).doesNotContain("\n");
            assertThat(text).as(name).contains("\r\n");
        }
    }

    @Test
    void itsJarMakesTheServiceOptionsFromItsJvmOptionsAsInstallPs1Does(@TempDir Path work) throws Exception {
        Path jar = Files.write(work.resolve("scheduled-events-bridge.jar"), entries.get(ROOT + "scheduled-events-bridge.jar"));
        Path options = Files.write(work.resolve("jvm.options"), entries.get(ROOT + "jvm.options"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", jar.toString(), "io.github.scheduledeventsbridge.windows.install.InstallPlanner", "service",
                "--install-dir", "C:\\Program Files\\scheduled-events-bridge",
                "--data-dir", "C:\\ProgramData\\scheduled-events-bridge",
                "--jvm-options", options.toString()));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(errors).isZero();

        assertThat(output.lines()).contains(
                "option\t--StartMode=jvm", "option\t--JvmOptions=-Xrs", "option\t++JvmOptions=-XX:+UseSerialGC",
                "option\t++JvmOptions=-Xmx96m",
                "option\t--Jvm=C:\\Program Files\\scheduled-events-bridge\\runtime\\bin\\server\\jvm.dll",
                "option\t--Classpath=C:\\Program Files\\scheduled-events-bridge\\scheduled-events-bridge.jar",
                "option\t++JvmOptions=-Dbridge.config=C:\\ProgramData\\scheduled-events-bridge\\bridge.properties");
    }

    private static String text(String name) {
        byte[] bytes = entries.get(ROOT + name);
        assertThat(bytes).as(name).isNotNull();
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
