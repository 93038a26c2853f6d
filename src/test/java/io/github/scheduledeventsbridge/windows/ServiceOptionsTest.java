package io.github.scheduledeventsbridge.windows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Windows service's procrun options, made from the same packaging/jvm.options every launcher reads. */
class ServiceOptionsTest {

    private static final String HOME = "C:\\Program Files\\scheduled-events-bridge";
    private static final String DATA = "C:\\ProgramData\\scheduled-events-bridge";
    private static final String JVM = "C:\\Program Files\\Microsoft\\jdk-17.0.13.11-hotspot\\bin\\server\\jvm.dll";

    @Test
    void theShippedJvmOptionsBecomeProcrunJvmOptionsInTheirOrderAfterXrs() throws Exception {
        List<String> shipped = ServiceOptions.readArgumentFile(Files.readString(Path.of("packaging/jvm.options")));
        assertThat(shipped).as("what the java launcher reads from the file").contains("-XX:+UseSerialGC", "-Xmx96m",
                "-XX:+ExitOnOutOfMemoryError").noneMatch(o -> o.startsWith("#"));

        List<String> arguments = new ServiceOptions(HOME, DATA, JVM, shipped).procrunArguments();

        List<String> jvmOptions = arguments.stream().filter(a -> a.contains("JvmOptions")).toList();
        assertThat(jvmOptions.get(0)).as("replaces the whole list, so a reinstall leaves nothing stale")
                .isEqualTo("--JvmOptions=-Xrs");
        assertThat(jvmOptions.subList(1, 1 + shipped.size()))
                .containsExactlyElementsOf(shipped.stream().map(o -> "++JvmOptions=" + o).toList());
        assertThat(arguments).contains(
                "--Jvm=" + JVM,
                "--Classpath=" + HOME + "\\scheduled-events-bridge.jar",
                "--StartMode=jvm", "--StopMode=jvm",
                "--StartClass=io.github.scheduledeventsbridge.BridgeApplication", "--StartMethod=start",
                "--StopClass=io.github.scheduledeventsbridge.BridgeApplication", "--StopMethod=stop",
                "--Startup=auto",
                "--LogPath=" + DATA + "\\logs", "--StdOutput=auto", "--StdError=auto",
                "++JvmOptions=-Dbridge.config=" + DATA + "\\bridge.properties",
                "++JvmOptions=-Dbridge.state.dir=" + DATA,
                "++JvmOptions=-Djava.io.tmpdir=" + DATA + "\\tmp",
                "++JvmOptions=-Dfile.encoding=UTF-8");
        assertThat(arguments).allMatch(a -> a.startsWith("--") || a.startsWith("++"))
                .noneMatch(a -> a.endsWith("\\"));
    }

    @Test
    void procrunWaitsLongerThanTheAgentsGracefulStopWhichWaitsLongerThanCamelsShutdown() {
        List<String> arguments = new ServiceOptions(HOME, DATA, JVM, List.of()).procrunArguments();
        int stopWait = Integer.parseInt(value(arguments, "--StopParams="));
        int stopTimeout = Integer.parseInt(value(arguments, "--StopTimeout="));
        int camelShutdown = Integer.parseInt(camelShutdownTimeout());
        assertThat(stopWait).isGreaterThanOrEqualTo(camelShutdown + 5);
        assertThat(stopTimeout).isGreaterThanOrEqualTo(stopWait + 5);
    }

    @Test
    void separatorsAreQuotedJava9OptionsGoToTheirOwnListAndASingleQuoteIsRefused() {
        List<String> arguments = new ServiceOptions(HOME, DATA, JVM,
                List.of("-Dpath=a;b", "-Dhash=x#y", "--add-opens=java.base/java.lang=ALL-UNNAMED")).procrunArguments();
        assertThat(arguments).contains("++JvmOptions='-Dpath=a;b'", "++JvmOptions='-Dhash=x#y'",
                "--JvmOptions9=--add-opens=java.base/java.lang=ALL-UNNAMED");
        assertThatThrownBy(() -> new ServiceOptions(HOME, DATA, JVM, List.of("-Dname=it's")).procrunArguments())
                .hasMessageContaining("contains a single quote");
    }

    @Test
    void theJava9OptionsReplaceTheServicesListInsteadOfAddingToItOnEveryInstall() {
        List<String> arguments = new ServiceOptions(HOME, DATA, JVM, List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
                "-Xmx96m", "--enable-preview")).procrunArguments();
        assertThat(arguments.stream().filter(a -> a.contains("JvmOptions9")).toList()).containsExactly(
                "--JvmOptions9=--add-opens=java.base/java.lang=ALL-UNNAMED", "++JvmOptions9=--enable-preview");
        assertThat(arguments).contains("++JvmOptions=-Xmx96m");
    }

    @Test
    void theArgumentFileIsReadAsTheJavaLauncherReadsIt() {
        assertThat(ServiceOptions.readArgumentFile("""
                # a comment line
                -Xmx96m   -Xss512k # a comment after options
                -Dx=a#b
                "-Dspaced=C:\\\\Program Files\\\\x" '-Dtab=a\\tb'
                -Dwin=C:\\unquoted\\path\r
                """)).containsExactly("-Xmx96m", "-Xss512k", "-Dx=a#b", "-Dspaced=C:\\Program Files\\x", "-Dtab=a\tb",
                "-Dwin=C:\\unquoted\\path");
        assertThatThrownBy(() -> ServiceOptions.readArgumentFile("\"-Dopen")).hasMessageContaining("not closed");
    }

    @Test
    void theJavaLauncherReadsTheShippedFileAsTheServiceOptionsDo(@TempDir Path work) throws Exception {
        // The real launcher's reading of @jvm.options, printed by a JVM started with it.
        Path probe = work.resolve("Probe.java");
        Files.writeString(probe, "public class Probe { public static void main(String[] a) { "
                + "java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()"
                + ".forEach(System.out::println); } }");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "@" + Path.of("packaging/jvm.options").toAbsolutePath(),
                probe.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        List<String> launcher = output.lines().filter(l -> l.startsWith("-")).filter(l -> !l.startsWith("--add-modules")
                && !l.startsWith("-Djdk.module")).toList();

        assertThat(ServiceOptions.readArgumentFile(Files.readString(Path.of("packaging/jvm.options"))))
                .containsExactlyElementsOf(launcher);
    }

    private static String value(List<String> arguments, String prefix) {
        return arguments.stream().filter(a -> a.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length());
    }

    private static List<String> readLines(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String camelShutdownTimeout() {
        return readLines("config/application.properties").stream()
                .filter(l -> l.startsWith("camel.main.shutdown-timeout=")).findFirst().orElseThrow()
                .substring("camel.main.shutdown-timeout=".length()).strip();
    }
}
