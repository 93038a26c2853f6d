package io.github.scheduledeventsbridge.windows.install;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.github.scheduledeventsbridge.windows.install.RealAcls.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The planner as install.ps1 runs it: facts in, plan out, through standard input and output in UTF-8. */
class InstallPlannerTest {

    private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 28, 14, 0, 0);
    private static final String DATA = "C:\\ProgramData\\Überwachung";

    @Test
    void aRealProcessReadsFactsAndWritesThePlanInUtf8WhateverTheDefaultCharset() throws Exception {
        String facts = "ancestor\tC:\\ProgramData\t0\t" + PROGRAM_DATA + "\r\n"
                + "folder\t" + DATA + "\t0\t" + FOLDER_MADE_BY_USER + "\r\n"
                + "entry\tjvm.options\tf\t0\t" + FILE_BY_USER + "\r\n"
                + "entry\tÄrger\td\t0\t" + FILE_BY_SERVICE + "\r\n"
                + "entry\tÄrger\\x.json\tf\t0\t\r\nunreadable\tÄrger\\x.json\r\n";
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Dfile.encoding=ISO-8859-1", "-Dsun.stdout.encoding=ISO-8859-1", "-cp",
                System.getProperty("java.class.path"), InstallPlanner.class.getName(), "folder", "--path", DATA,
                "--service", "scheduled-events-bridge"));
        Process process = new ProcessBuilder(command).start();
        // What Windows PowerShell 5.1 pipes with $OutputEncoding = UTF-8 without BOM; a BOM is ignored all the same.
        process.getOutputStream().write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        process.getOutputStream().write(facts.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(err).isZero();

        assertThat(out.lines()).contains("take-ownership\t.").anyMatch(l -> l.matches(
                "set-aside\tjvm\\.options\tjvm\\.options\\.untrusted-\\d{8}-\\d{6}\towned by " + USER + ", .*"));
        assertThat(out.lines().filter(l -> l.startsWith("set-aside\tÄrger\\x.json\tx.json.untrusted-"))).hasSize(1);
    }

    @Test
    void theServiceOptionsComeFromJvmOptionsWithABomAndTheStaleJava9ListIsCleared(@TempDir Path work)
            throws Exception {
        Path options = work.resolve("jvm.options");
        Files.write(options, ("\uFEFF# saved by Set-Content -Encoding UTF8 ('quoted')\r\n-Xmx96m\r\n")
                .getBytes(StandardCharsets.UTF_8));
        String[] args = {"service", "--install-dir", "C:\\Program Files\\scheduled-events-bridge", "--data-dir",
                DATA, "--jvm-options", options.toString()};
        List<String> plan = InstallPlanner.plan(args, List.of("current\tOptions9\t--add-opens=a=b",
                "current\tOptions9\t--add-opens=a=b"), NOW);
        assertThat(plan).startsWith("clear-registry-value\tOptions9").contains("option\t++JvmOptions=-Xmx96m",
                "option\t--Jvm=C:\\Program Files\\scheduled-events-bridge\\runtime\\bin\\server\\jvm.dll",
                "option\t++JvmOptions=-Dbridge.state.dir=" + DATA);
        assertThat(InstallPlanner.plan(args, List.of(), NOW)).noneMatch(l -> l.startsWith("clear-registry-value"));

        Files.writeString(options, "\"-Dname=it's\"\n");
        assertThat(InstallPlanner.plan(args, List.of(), NOW)).containsExactly("refuse\t" + options
                + ": JVM option -Dname=it's contains a single quote, which procrun cannot take in a JVM option");

        Files.write(options, "-Dname=\u00dcberwachung\r\n".getBytes("windows-1252"));
        assertThat(InstallPlanner.plan(args, List.of(), NOW)).singleElement().asString()
                .startsWith("refuse\t" + options + " is not UTF-8");
    }

    @Test
    void theJavaIsTheRequestedOneOrTheNewestFound(@TempDir Path programFiles) throws Exception {
        Path home = Files.createDirectories(programFiles.resolve("Microsoft/jdk-17.0.13.11-hotspot/bin/server"))
                .getParent().getParent();
        Files.write(home.resolve("bin/server/jvm.dll"), new byte[] {'M', 'Z'});
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"17.0.13\"\n");
        assertThat(InstallPlanner.plan(new String[] {"java", "--program-files", programFiles.toString()}, List.of(),
                NOW)).containsExactly("java\t" + home + "\t17.0.13");
        assertThat(InstallPlanner.plan(new String[] {"java", "--requested", programFiles.toString()}, List.of(), NOW))
                .singleElement().asString().startsWith("refuse\t-JavaHome " + programFiles + " is not a Java 17");
        assertThat(InstallPlanner.plan(new String[] {"java", "--program-files", home.toString()}, List.of(), NOW))
                .singleElement().asString().startsWith("refuse\tNo Java 17 or newer was found");
    }

    @Test
    void theSettingsPlanReadsTheFileAndTheMachineVariables(@TempDir Path work) throws Exception {
        Path file = Files.writeString(work.resolve("bridge.properties"), "bridge.drain.port=8091\n");
        assertThat(InstallPlanner.plan(new String[] {"settings", "--properties", file.toString()},
                List.of("machine-variable\tPATH\tC:\\Windows", "machine-variable\tBRIDGE_DRAIN_PORT\t9091"), NOW))
                .contains("event-source\tscheduled-events-bridge", "firewall\tdrain signal\t9091")
                .anyMatch(l -> l.startsWith("warn\tBRIDGE_DRAIN_PORT is set for the whole machine"))
                .noneMatch(l -> l.contains("PATH"));
    }
}
