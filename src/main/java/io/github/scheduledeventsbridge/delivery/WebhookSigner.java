package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.Exchange;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HexFormat;

/**
 * docs/messages.md, "Signatures": {@code X-Bridge-Signature: sha256=hex(HMAC-SHA256(secret, timestamp + "." + body))}.
 * The same code verifies inbound approvals, always in constant time.
 */
public final class WebhookSigner {

    public static final String TIMESTAMP_HEADER = "X-Bridge-Timestamp";
    public static final String SIGNATURE_HEADER = "X-Bridge-Signature";

    private final byte[] secret;
    private final Clock clock;

    public WebhookSigner(String secret, Clock clock) {
        this.secret = secret == null ? new byte[0] : secret.getBytes(StandardCharsets.UTF_8);
        this.clock = clock;
    }

    public boolean hasSecret() {
        return secret.length > 0;
    }

    /** Route step: stamps the outgoing request; run on every attempt so the timestamp is fresh. */
    public void sign(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        String timestamp = Long.toString(clock.millis() / 1000);
        exchange.getMessage().setHeader(TIMESTAMP_HEADER, timestamp);
        if (hasSecret()) {
            exchange.getMessage().setHeader(SIGNATURE_HEADER, signature(timestamp, body));
        }
    }

    public String signature(String timestamp, byte[] body) {
        Mac mac = macs.get();
        mac.update(timestamp.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) '.');
        mac.update(body);
        return "sha256=" + HexFormat.of().formatHex(mac.doFinal());
    }

    /** Keyed once per thread (each lane, the approval server's): the provider look-up and key set-up are not per message. */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time comparison: the time taken never tells how much of a forged signature was right. */
    public boolean verify(String timestamp, byte[] body, String presented) {
        if (!hasSecret() || timestamp == null || presented == null) {
            return false;
        }
        byte[] expected = signature(timestamp, body).getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8));
    }
}
