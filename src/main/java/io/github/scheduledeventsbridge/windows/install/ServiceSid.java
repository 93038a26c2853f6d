package io.github.scheduledeventsbridge.windows.install;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * A service's SID, {@code NT SERVICE\name}, as Windows derives it: S-1-5-80 and the SHA-1 of the upper-cased service
 * name in UTF-16LE, read as five little-endian 32-bit sub-authorities. Known before the service exists, so the
 * installer can name it in an ACL before anything else.
 */
public final class ServiceSid {

    private ServiceSid() {
    }

    public static String of(String serviceName) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-1")
                    .digest(serviceName.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_16LE));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-1", e);
        }
        ByteBuffer words = ByteBuffer.wrap(digest).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder sid = new StringBuilder("S-1-5-80");
        for (int i = 0; i < 5; i++) {
            sid.append('-').append(Integer.toUnsignedLong(words.getInt()));
        }
        return sid.toString();
    }
}
