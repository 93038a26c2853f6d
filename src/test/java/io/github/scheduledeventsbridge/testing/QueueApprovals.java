package io.github.scheduledeventsbridge.testing;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Signed approval envelopes as docs/approvals.md describes them, for tests that put them on a queue. */
public final class QueueApprovals {

    private static final ObjectMapper JSON = new ObjectMapper();

    private QueueApprovals() {
    }

    /** {"timestamp": ts, "signature": "sha256=…", "body": body}, signed with {@code secret}. */
    public static String envelope(String secret, long timestamp, String body) {
        return JSON.createObjectNode().put("timestamp", timestamp)
                .put("signature", ApprovalClient.sign(secret, Long.toString(timestamp), body.getBytes(StandardCharsets.UTF_8)))
                .put("body", body).toString();
    }

    public static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    public static String approve(String eventId) {
        return "{\"StartRequests\":[{\"EventId\":\"" + eventId + "\"}]}";
    }
}
