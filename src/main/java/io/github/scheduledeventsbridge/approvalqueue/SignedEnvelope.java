package io.github.scheduledeventsbridge.approvalqueue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.delivery.WebhookSigner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;

/**
 * A queue message's envelope, {@code {"timestamp": …, "signature": "sha256=<hex>", "body": "<approval body>"}},
 * as text or as base64 of it (Azure's tools write both), checked in the order that tells a forger nothing: shape,
 * signature (HMAC-SHA256 over timestamp + "." + the body's UTF-8 bytes, exactly as the HTTP API), then the signed
 * timestamp against the message's insertion time as the queue service reports it.
 */
public final class SignedEnvelope {

    /** How far the signed timestamp may lie from the insertion time, as the HTTP API's window. */
    public static final Duration WINDOW = Duration.ofSeconds(300);
    /** The HTTP API's largest body. */
    static final int MAX_BODY_BYTES = 64 * 1024;
    private static final Set<String> FIELDS = Set.of("timestamp", "signature", "body");
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** Why a message is refused for good; each is a metric's outcome tag. */
    public enum Refusal { JUNK, UNSIGNED, BAD_SIGNATURE, EXPIRED, REPLAY, REFUSED }

    /** A message that failed a check: never reaches IMDS. */
    public static final class Refused extends Exception {
        private final Refusal kind;

        public Refused(Refusal kind, String reason) {
            super(reason, null, false, false);
            this.kind = kind;
        }

        public Refusal kind() {
            return kind;
        }
    }

    /** What a valid envelope carries: the approval body's bytes (what the signature covers), its timestamp and signature. */
    public record Verified(byte[] body, long timestamp, String signature) {
    }

    private final WebhookSigner signer;

    public SignedEnvelope(WebhookSigner signer) {
        this.signer = signer;
    }

    public Verified verify(String text, Instant insertionTime) throws Refused {
        JsonNode envelope = envelope(text);
        JsonNode timestamp = envelope.get("timestamp");
        JsonNode signature = envelope.get("signature");
        JsonNode body = envelope.get("body");
        if (signature == null || signature.isNull() || timestamp == null || timestamp.isNull()) {
            throw new Refused(Refusal.UNSIGNED, "no timestamp or signature");
        }
        if (!signature.isTextual() || body == null || !body.isTextual()
                || !(timestamp.isTextual() || timestamp.isIntegralNumber())) {
            throw new Refused(Refusal.JUNK, "timestamp, signature and body must be a number or string, a string, a string");
        }
        byte[] bytes = body.asText().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BODY_BYTES) {
            throw new Refused(Refusal.JUNK, "body over 64 KiB");
        }
        String signedTimestamp = timestamp.isTextual() ? timestamp.asText() : timestamp.numberValue().toString();
        if (!signer.verify(signedTimestamp, bytes, signature.asText())) {
            throw new Refused(Refusal.BAD_SIGNATURE, "signature does not match");
        }
        long seconds;
        try {
            seconds = Long.parseLong(signedTimestamp.trim());
        } catch (NumberFormatException e) {
            throw new Refused(Refusal.JUNK, "timestamp is not Unix seconds");
        }
        if (Math.abs(insertionTime.getEpochSecond() - seconds) > WINDOW.toSeconds()) {
            throw new Refused(Refusal.EXPIRED, "signed timestamp is more than 300 s from the message's insertion time");
        }
        return new Verified(bytes, seconds, signature.asText());
    }

    /** The JSON object, from the text or from the base64 of it. */
    private static JsonNode envelope(String text) throws Refused {
        String trimmed = text == null ? "" : text.strip();
        String json = trimmed;
        if (!trimmed.startsWith("{")) {
            try {
                json = new String(Base64.getMimeDecoder().decode(trimmed), StandardCharsets.UTF_8).strip();
            } catch (IllegalArgumentException e) {
                throw new Refused(Refusal.JUNK, "neither a JSON envelope nor base64 of one");
            }
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new Refused(Refusal.JUNK, "neither a JSON envelope nor base64 of one");
        }
        if (node == null || !node.isObject()) {
            throw new Refused(Refusal.JUNK, "not a JSON object");
        }
        for (var names = node.fieldNames(); names.hasNext(); ) {
            if (!FIELDS.contains(names.next())) {
                throw new Refused(Refusal.JUNK, "fields other than timestamp, signature and body");
            }
        }
        return node;
    }
}
