package io.github.scheduledeventsbridge.windows.install;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * jvm.options as Windows editors save it: Notepad writes UTF-8 (with a byte-order mark before Windows 10 1903),
 * Windows PowerShell 5.1 writes UTF-8 with a byte-order mark ({@code -Encoding UTF8}) or UTF-16 ({@code >},
 * {@code Out-File}), older Notepads the ANSI code page. The text is taken in UTF-8 with or without byte-order mark and
 * in UTF-16 with one; anything else is refused, naming the encoding and how to save it again.
 */
public final class JvmOptionsFile {

    private JvmOptionsFile() {
    }

    public static String decode(byte[] bytes, String file) {
        if (starts(bytes, 0xEF, 0xBB, 0xBF)) {
            return utf8(bytes, 3, file);
        }
        if (starts(bytes, 0xFF, 0xFE)) {
            return strict(StandardCharsets.UTF_16LE, bytes, 2, file, "UTF-16LE");
        }
        if (starts(bytes, 0xFE, 0xFF)) {
            return strict(StandardCharsets.UTF_16BE, bytes, 2, file, "UTF-16BE");
        }
        for (byte b : bytes) {
            if (b == 0) {
                throw new IllegalArgumentException(file + " holds NUL bytes: it is UTF-16 without a byte-order mark, "
                        + "which is not taken. " + resave(file));
            }
        }
        return utf8(bytes, 0, file);
    }

    private static String utf8(byte[] bytes, int offset, String file) {
        return strict(StandardCharsets.UTF_8, bytes, offset, file, null);
    }

    private static String strict(Charset charset, byte[] bytes, int offset, String file, String name) {
        try {
            return charset.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, bytes.length - offset)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(file + (name == null
                    ? " is not UTF-8: it is most likely in the ANSI code page (as older Notepads save it)"
                    : " starts with a " + name + " byte-order mark but is not " + name) + ". " + resave(file), e);
        }
    }

    private static String resave(String file) {
        return "Save it again as UTF-8, e.g. in Notepad (Save as, Encoding: UTF-8) or in PowerShell: "
                + "[IO.File]::WriteAllText('" + file + "', [IO.File]::ReadAllText('" + file + "', "
                + "[Text.Encoding]::Default))";
    }

    private static boolean starts(byte[] bytes, int... prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if ((bytes[i] & 0xFF) != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
