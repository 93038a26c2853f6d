package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.platform.OperatingSystem;
import io.github.scheduledeventsbridge.platform.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A configuration file as Windows PowerShell 5.1 writes it (UTF-16, or UTF-8 with a byte-order mark) would be read
 * wrong without a word: start-up stops instead, with one line naming the file and how to save it again, exit 2.
 */
class ConfigFileEncodingTest {

    /** Refused when read right; read wrong, the agent would start (against a closed loopback port) and not return. */
    private static final String SETTINGS = "bridge.imds.poll-interval=100\n";

    @TempDir
    Path dir;

    /**
     * BridgeApplication.run as main calls it, with -Dbridge.config: its exit code (within 60 s) and what it wrote to
     * stderr. Only loopback: IMDS is a closed port.
     */
    private String[] run(Path config) throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Map<String, String> settings = Map.of("bridge.config", config.toString(), "bridge.state.dir",
                dir.resolve("state").toString(), "bridge.management.port", "0",
                "bridge.imds.url", "http://127.0.0.1:9/", "bridge.imds.instance-url", "http://127.0.0.1:9/");
        settings.forEach(System::setProperty);
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        java.util.concurrent.ExecutorService runner = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bridge-run");
            t.setDaemon(true);
            return t;
        });
        try {
            int code = runner.submit(() -> BridgeApplication.run()).get(60, java.util.concurrent.TimeUnit.SECONDS);
            return new String[]{Integer.toString(code), captured.toString(StandardCharsets.UTF_8)};
        } finally {
            runner.shutdown();
            System.setErr(stderr);
            settings.keySet().forEach(System::clearProperty);
        }
    }

    @ParameterizedTest
    @CsvSource({
            "UTF-16LE, FFFE, is UTF-16",
            "UTF-16BE, FEFF, is UTF-16",
            "UTF-16LE, '',   holds NUL bytes",
            "UTF-8,    EFBBBF, UTF-8 byte-order mark"})
    void aFileInUtf16OrWithAByteOrderMarkStopsStartUpWithOneLine(String charset, String bom, String problem)
            throws Exception {
        Path config = dir.resolve("bridge.properties");
        Files.write(config, concat(HexFormat.of().parseHex(bom), SETTINGS.getBytes(Charset.forName(charset))));

        String[] result = run(config);

        assertThat(result[0]).isEqualTo("2");
        assertThat(result[1].lines()).singleElement().satisfies(line -> assertThat(line)
                .startsWith("Bad configuration: bridge.config: " + config + " ").contains(problem)
                .contains("Set-Content -Encoding ascii '" + config + "'").endsWith("(from -Dbridge.config)"));
    }

    @Test
    void anAsciiFileIsReadAsBefore() throws Exception {
        Path config = Files.writeString(dir.resolve("bridge.properties"), SETTINGS, StandardCharsets.US_ASCII);

        String[] result = run(config);

        assertThat(result[0]).isEqualTo("2");
        assertThat(result[1]).as("its own value is what is refused").contains("bridge.imds.poll-interval: 100")
                .doesNotContain("UTF");
    }

    @Test
    void onWindowsTheFileUnderProgramDataIsReadBeforeTheWorkingDirectorysOne() {
        Platform windows = Platform.of(OperatingSystem.WINDOWS, FileSystems.getDefault(), Map.of());
        assertThat(BridgeApplication.locations(windows)).isEqualTo(
                "file:C:/ProgramData/scheduled-events-bridge/bridge.properties;optional=true,"
                        + "file:config/application.properties;optional=true,classpath:application.properties;optional=true");
        Platform linux = Platform.of(OperatingSystem.LINUX, FileSystems.getDefault(), Map.of());
        assertThat(BridgeApplication.locations(linux)).isEqualTo(
                "file:config/application.properties;optional=true,classpath:application.properties;optional=true");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
