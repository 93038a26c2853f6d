// A webhook receiver for trying the agent: prints every message it is sent on one line, and checks its
// signature when it knows the secret. Needs nothing but a JDK 17+ (single-file source launch):
//
//   BRIDGE_WEBHOOK_SECRET=... java bin/webhook-receiver.java [--port 9000] [--port-file FILE]
//
// Then point the agent at it: -Dbridge.webhook.urls=http://127.0.0.1:9000/ with the same
// BRIDGE_WEBHOOK_SECRET. bin/try-on-simulator starts one by itself. It listens on 127.0.0.1 only.
// --port 0 takes any free port; --port-file writes the port there once it listens (for scripts).
//
// Answers: 200 when the message is accepted; 401 when a secret is set and X-Bridge-Signature is missing or
// wrong or X-Bridge-Timestamp is more than 300 s away (the agent retries, then dead-letters it after
// bridge.delivery.dead-letter-after); 405 for anything but POST; 413 over 1 MiB.
// The check is the one every receiver should make (docs/messages.md, "Verifying a signature"):
// HMAC-SHA256(secret, timestamp + "." + raw body), lowercase hex after "sha256=", compared in constant time.

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class WebhookReceiver {

    private static final int MAX_BODY = 1 << 20;
    private static final long WINDOW_SECONDS = 300;
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        int port = 9000;
        Path portFile = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--port-file" -> portFile = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: [BRIDGE_WEBHOOK_SECRET=...] java bin/webhook-receiver.java [--port N] [--port-file FILE]");
                    System.exit(2);
                }
            }
        }
        String secret = System.getenv().getOrDefault("BRIDGE_WEBHOOK_SECRET", "");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.createContext("/", exchange -> {
            try (exchange) {
                answer(exchange, secret);
            }
        });
        server.start();
        int bound = server.getAddress().getPort();
        OUT.println("[webhook-receiver] listening on http://127.0.0.1:" + bound + "/ ("
                + (secret.isEmpty() ? "no secret: signatures not checked" : "checking X-Bridge-Signature") + ")");
        if (portFile != null) {
            Path partial = portFile.resolveSibling(portFile.getFileName() + ".tmp");
            Files.writeString(partial, Integer.toString(bound));
            Files.move(partial, portFile, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static void answer(HttpExchange exchange, String secret) throws IOException {
        if (!exchange.getRequestMethod().equals("POST")) {
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
            OUT.println("[webhook-receiver] 413: a body over 1 MiB");
            exchange.sendResponseHeaders(413, -1);
            return;
        }
        String verdict = secret.isEmpty() ? "not checked" : check(secret,
                exchange.getRequestHeaders().getFirst("X-Bridge-Timestamp"),
                exchange.getRequestHeaders().getFirst("X-Bridge-Signature"), body);
        String line = new String(body, StandardCharsets.UTF_8).replace("\r", "").replace("\n", " ");
        if (verdict.equals("valid") || verdict.equals("not checked")) {
            OUT.println("[webhook-receiver] " + headline(line) + "signature " + verdict + ": " + line);
            exchange.sendResponseHeaders(200, -1);
        } else {
            OUT.println("[webhook-receiver] 401, refused (" + verdict + "): " + line);
            exchange.sendResponseHeaders(401, -1);
        }
    }

    /**
     * "Scheduled Freeze <EventId>, " for a CloudEvent of the agent, "ActionSucceeded prepare Freeze <EventId>, " for a
     * command's outcome (as the agent's log line says it); empty for other messages (Slack, Teams).
     */
    static String headline(String json) {
        StringBuilder out = new StringBuilder();
        for (String field : new String[] {"transition", "action", "eventType", "eventId"}) {
            Matcher m = Pattern.compile("\"" + field + "\":\"([^\"]*)\"").matcher(json);
            if (m.find()) {
                out.append(m.group(1)).append(' ');
            }
        }
        return out.isEmpty() ? "" : out.toString().strip() + ", ";
    }

    /** "valid", or why not. */
    static String check(String secret, String timestamp, String signature, byte[] body) {
        if (timestamp == null || signature == null) {
            return "no X-Bridge-Timestamp or X-Bridge-Signature";
        }
        long sentAt;
        try {
            sentAt = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return "X-Bridge-Timestamp is not a number";
        }
        if (Math.abs(System.currentTimeMillis() / 1000 - sentAt) > WINDOW_SECONDS) {
            return "timestamp more than " + WINDOW_SECONDS + " s away";
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp.trim() + ".").getBytes(StandardCharsets.UTF_8));
            String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
            boolean same = MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                    signature.trim().getBytes(StandardCharsets.UTF_8));
            return same ? "valid" : "signature does not match";
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
