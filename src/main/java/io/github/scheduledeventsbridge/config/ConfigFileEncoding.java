package io.github.scheduledeventsbridge.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A properties file is read as ASCII (ISO-8859-1). Windows PowerShell 5.1 writes UTF-16 ({@code >}, {@code Out-File})
 * or UTF-8 with a byte-order mark ({@code -Encoding UTF8}): read as they are, every key of the first would be another
 * name, and the first key of the second too, silently. Such a file is refused, naming it and how to save it again.
 */
public final class ConfigFileEncoding {

    private static final String RESAVE = "save it again as ASCII or UTF-8 without BOM, e.g. in PowerShell: "
            + "(Get-Content '%1$s') | Set-Content -Encoding ascii '%1$s'";

    private ConfigFileEncoding() {
    }

    /**
     * What is wrong with a file in UTF-16 or with a byte-order mark, and how to save it again; null for any other file
     * (a missing or unreadable one is someone else's to report).
     */
    public static String problem(Path file) {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(64);
        } catch (IOException unreadable) {
            return null;
        }
        String problem = problem(head);
        return problem == null ? null : problem + ": " + String.format(RESAVE, file);
    }

    private static String problem(byte[] head) {
        if (head.length >= 2 && ((head[0] == (byte) 0xFF && head[1] == (byte) 0xFE) || (head[0] == (byte) 0xFE && head[1] == (byte) 0xFF))) {
            return "is UTF-16 (as Windows PowerShell 5.1's > and Out-File write it), not a properties file's ASCII";
        }
        if (head.length >= 3 && head[0] == (byte) 0xEF && head[1] == (byte) 0xBB && head[2] == (byte) 0xBF) {
            return "starts with a UTF-8 byte-order mark (as Windows PowerShell 5.1's -Encoding UTF8 writes it), which "
                    + "would become part of its first key";
        }
        for (byte b : head) {
            if (b == 0) {
                return "holds NUL bytes: it is UTF-16 (without byte-order mark), not a properties file's ASCII";
            }
        }
        return null;
    }
}
