package io.github.scheduledeventsbridge.windows.install;

import io.github.scheduledeventsbridge.windows.ServiceOptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** jvm.options in the bytes Windows editors and PowerShell 5.1 write: taken, or refused naming the encoding. */
class JvmOptionsFileTest {

    private static final String FILE = "C:\\ProgramData\\scheduled-events-bridge\\jvm.options";
    private static final String TEXT = "# the agent's options ('quoted' in a comment)\r\n-Xmx96m\r\n-Dname=\u00dcberwachung\r\n";
    private static final List<String> OPTIONS = List.of("-Xmx96m", "-Dname=\u00dcberwachung");

    @Test
    void utf8WithOrWithoutByteOrderMarkAndUtf16WithOneAreTaken() {
        byte[] utf8 = TEXT.getBytes(StandardCharsets.UTF_8);
        // Set-Content -Encoding UTF8 (Windows PowerShell 5.1): EF BB BF first.
        byte[] utf8Bom = concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8);
        // Out-File and > (Windows PowerShell 5.1): FF FE, then UTF-16LE.
        byte[] utf16le = concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, TEXT.getBytes(StandardCharsets.UTF_16LE));
        byte[] utf16be = TEXT.getBytes(StandardCharsets.UTF_16); // Java writes FE FF first
        for (byte[] bytes : List.of(utf8, utf8Bom, utf16le, utf16be)) {
            assertThat(ServiceOptions.readArgumentFile(JvmOptionsFile.decode(bytes, FILE))).containsExactlyElementsOf(
                    OPTIONS);
        }
        assertThatThrownBy(() -> ServiceOptions.readArgumentFile(new String(utf8Bom, StandardCharsets.UTF_8)))
                .as("what reading it as plain UTF-8 did").hasMessageContaining("is not closed");
    }

    @Test
    void ansiAndUtf16WithoutByteOrderMarkAreRefusedNamingTheFileAndTheEncoding() {
        byte[] ansi = TEXT.getBytes(Charset.forName("windows-1252"));
        assertThatThrownBy(() -> JvmOptionsFile.decode(ansi, FILE)).hasMessageStartingWith(FILE + " is not UTF-8")
                .hasMessageContaining("ANSI code page").hasMessageContaining("Save it again as UTF-8");
        byte[] utf16NoBom = TEXT.getBytes(StandardCharsets.UTF_16LE);
        assertThatThrownBy(() -> JvmOptionsFile.decode(utf16NoBom, FILE))
                .hasMessageStartingWith(FILE + " holds NUL bytes: it is UTF-16 without a byte-order mark");
    }

    @Test
    void theShippedFileIsAscii() throws Exception {
        byte[] bytes = Files.readAllBytes(Path.of("packaging/jvm.options"));
        for (int i = 0; i < bytes.length; i++) {
            assertThat(bytes[i] >= 0 && bytes[i] != 0).as("packaging/jvm.options byte %d is ASCII", i).isTrue();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
