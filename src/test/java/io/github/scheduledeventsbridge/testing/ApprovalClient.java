package io.github.scheduledeventsbridge.testing;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/** A remote approver: signs requests as docs/approvals.md says, independently of the agent's code. */
public final class ApprovalClient {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String secret;

    public ApprovalClient(int port, String secret) {
        this.base = "http://127.0.0.1:" + port;
        this.secret = secret;
    }

    public static String sign(String secret, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static String now() {
        return Long.toString(Instant.now().getEpochSecond());
    }

    /** A correctly signed approval with the given body. */
    public HttpResponse<String> approve(String body) {
        String timestamp = now();
        return post(body.getBytes(StandardCharsets.UTF_8), timestamp, sign(secret, timestamp, body.getBytes(StandardCharsets.UTF_8)));
    }

    public HttpResponse<String> post(byte[] body, String timestamp, String signature) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/api/v1/approvals"))
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json");
        if (timestamp != null) {
            request.header("X-Bridge-Timestamp", timestamp);
        }
        if (signature != null) {
            request.header("X-Bridge-Signature", signature);
        }
        return send(request.build());
    }

    public HttpResponse<String> events(boolean signed) {
        String timestamp = now();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/api/v1/events"))
                .timeout(Duration.ofSeconds(20)).GET();
        if (signed) {
            request.header("X-Bridge-Timestamp", timestamp).header("X-Bridge-Signature", sign(secret, timestamp, new byte[0]));
        }
        return send(request.build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
