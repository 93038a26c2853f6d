package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A properties file is read as ISO-8859-1: one that Windows PowerShell 5.1 wrote in UTF-16 or with a byte-order mark
 * would silently become other key names. Such a file is refused, naming it and how to save it again.
 */
public final class ConfigFileEncoding {

    private static final String RESAVE = "save it again as ASCII or UTF-8 without BOM, e.g. in PowerShell: "
            + "(Get-Content '%1$s') | Set-Content -Encoding ascii '%1$s'";
    private static final String UTF_16 =
            "is UTF-16 (as Windows PowerShell 5.1's > and Out-File write it), not a properties file's ASCII";
    private static final String UTF_8_BOM = "starts with a UTF-8 byte-order mark (as Windows PowerShell 5.1's "
            + "-Encoding UTF8 writes it), which would become part of its first key";
    private static final String NUL_BYTES =
            "holds NUL bytes: it is UTF-16 (without byte-order mark), not a properties file's ASCII";

    private ConfigFileEncoding() {
    }

    /** What is wrong with the file and how to save it again; null for any other file (or a missing, unreadable one). */
    public static String problem(Path file) {
        String head;
        try (InputStream in = Files.newInputStream(file)) {
            head = new String(in.readNBytes(64), StandardCharsets.ISO_8859_1);
        } catch (IOException unreadable) {
            return null;
        }
        String problem = head.startsWith("\u00ff\u00fe") || head.startsWith("\u00fe\u00ff") ? UTF_16
                : head.startsWith("\u00ef\u00bb\u00bf") ? UTF_8_BOM : head.indexOf(0) >= 0 ? NUL_BYTES : null;
        return problem == null ? null : problem + ": " + String.format(RESAVE, file);
    }
}
