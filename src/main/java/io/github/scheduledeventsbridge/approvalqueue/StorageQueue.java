package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.http.BoundedExchange;
import io.github.scheduledeventsbridge.identity.TokenUnavailableException;
import io.github.scheduledeventsbridge.logging.Redaction;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The three REST calls of an Azure Storage queue the agent makes (receive with a visibility timeout, delete, and
 * put for tests and tools), on the JDK's HttpClient through {@link BoundedExchange}: each call ends at a deadline,
 * reads a bounded answer, reaches only the queue's own host. No SDK: two calls do not justify one.
 */
public final class StorageQueue {

    /** A version every current service and Azurite accept, recent enough for bearer tokens (2017-11-09+). */
    public static final String VERSION = "2021-12-02";
    /** 32 messages of 64 KiB, base64 in XML, are 2.8 MiB: the agent asks for fewer, and reads at most this. */
    static final int MAX_ANSWER_BYTES = 1024 * 1024;
    private static final DateTimeFormatter RFC1123 = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
    private static final Pattern MESSAGE = Pattern.compile("<QueueMessage>(.*?)</QueueMessage>", Pattern.DOTALL);
    private static final Pattern FIELD = Pattern.compile("<([A-Za-z]+)>([^<]*)</\\1>");
    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
    private static final Pattern ENTITY = Pattern.compile("&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});");

    /** A received message: its text as the service holds it (base64 or not: the caller decides). */
    public record Message(String id, String popReceipt, Instant insertionTime, Instant expirationTime,
                          int dequeueCount, String text) {
        @Override
        public String toString() {
            return "Message[" + id + ", inserted " + insertionTime + ", dequeued " + dequeueCount + "]";
        }
    }

    private final URI queue;
    private final QueueCredential credential;
    private final Duration timeout;
    private final Clock clock;
    private final BoundedExchange http;

    public StorageQueue(URI queue, QueueCredential credential, SSLContext tls, Duration timeout, Clock clock) {
        this.queue = URI.create(queue.toString().replaceAll("/+$", ""));
        this.credential = credential;
        this.timeout = timeout;
        this.clock = clock;
        this.http = new BoundedExchange(BoundedExchange.client(tls, timeout));
    }

    public URI url() {
        return queue;
    }

    /** Up to {@code max} messages (1..32), each invisible to others for {@code visibility}. */
    public List<Message> receive(int max, Duration visibility) throws QueueFailure {
        return messages("numofmessages=" + max + "&visibilitytimeout=" + Math.max(1, visibility.toSeconds()));
    }

    /** Up to {@code max} visible messages, left as they are (tests and tools; no pop receipt). */
    public List<Message> peek(int max) throws QueueFailure {
        return messages("numofmessages=" + max + "&peekonly=true");
    }

    private List<Message> messages(String query) throws QueueFailure {
        BoundedExchange.Answer answer = call("GET", "/messages", query, null, 200);
        if (answer.truncated()) {
            throw new QueueFailure("Receiving from " + queue + " failed: the answer is over " + MAX_ANSWER_BYTES
                    + " bytes", answer.status(), null, null, null);
        }
        try {
            List<Message> messages = new ArrayList<>();
            Matcher each = MESSAGE.matcher(answer.text());
            while (each.find()) {
                Map<String, String> fields = fields(each.group(1));
                messages.add(new Message(required(fields, "MessageId"), fields.get("PopReceipt"),
                        time(fields, "InsertionTime"), time(fields, "ExpirationTime"),
                        Integer.parseInt(required(fields, "DequeueCount").trim()), fields.getOrDefault("MessageText", "")));
            }
            return messages;
        } catch (RuntimeException e) {
            throw new QueueFailure("Receiving from " + queue + " failed: the answer is not a message list ("
                    + e.getClass().getSimpleName() + ")", answer.status(), null, null, e);
        }
    }

    /**
     * Deletes a received message; false when it is gone already (404) or was received again since, so that this
     * pop receipt is stale (400 PopReceiptMismatch): the later delivery deletes it.
     */
    public boolean delete(Message message) throws QueueFailure {
        try {
            BoundedExchange.Answer answer = call("DELETE", "/messages/" + URLEncoder.encode(message.id(), StandardCharsets.UTF_8),
                    "popreceipt=" + URLEncoder.encode(message.popReceipt(), StandardCharsets.UTF_8), null, 204, 404);
            return answer.status() == 204;
        } catch (QueueFailure e) {
            if (e.status() == 400 && "PopReceiptMismatch".equals(e.errorCode())) {
                return false;
            }
            throw e;
        }
    }

    /** Puts a message (tests and tools; the agent only receives). */
    public void put(String text, Duration timeToLive) throws QueueFailure {
        String xml = "<QueueMessage><MessageText>" + text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                + "</MessageText></QueueMessage>";
        call("POST", "/messages", "messagettl=" + timeToLive.toSeconds(), xml, 201);
    }

    private BoundedExchange.Answer call(String method, String path, String query, String body, int... expected)
            throws QueueFailure {
        String extra = credential.query();
        URI uri = URI.create(queue + path + "?" + query + (extra.isEmpty() ? "" : "&" + extra));
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String contentType = body == null ? null : "application/xml";
        Map<String, String> ms = new LinkedHashMap<>();
        ms.put("x-ms-date", RFC1123.format(clock.instant()));
        ms.put("x-ms-version", VERSION);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes));
        ms.forEach(request::header);
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        String what = describe(method) + " " + queue;
        try {
            String authorization = credential.authorization(method, uri, ms, bytes.length, contentType);
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
        } catch (TokenUnavailableException e) {
            throw new QueueFailure(what + " failed: " + e.getMessage(), 0, "NoToken", null, e);
        }
        BoundedExchange.Answer answer;
        try {
            answer = http.send(request.build(), MAX_ANSWER_BYTES, timeout);
        } catch (HttpTimeoutException e) {
            throw new QueueFailure(what + " failed: no answer within " + timeout.toMillis() + " ms", 0, null, null, e);
        } catch (IOException e) {
            throw new QueueFailure(what + " failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Redaction.peerText(e.getMessage())), 0, null, null, e);
        }
        for (int status : expected) {
            if (answer.status() == status) {
                return answer;
            }
        }
        String code = answer.headers().firstValue("x-ms-error-code").orElseGet(() -> errorCode(answer.body()));
        Duration retryAfter = answer.headers().firstValue("Retry-After").map(StorageQueue::seconds).orElse(null);
        throw new QueueFailure(what + " failed: HTTP " + answer.status() + (code == null ? "" : " " + Redaction.peerText(code))
                + meaning(answer.status(), code, credential) + (retryAfter == null ? "" : " (Retry-After " + retryAfter.toSeconds() + " s)"),
                answer.status(), code, retryAfter, null);
    }

    private static String describe(String method) {
        return switch (method) {
            case "GET" -> "Receiving from";
            case "DELETE" -> "Deleting a message of";
            default -> "Putting a message on";
        };
    }

    /** What an error means for the one who has to fix it. */
    static String meaning(int status, String code, QueueCredential credential) {
        if ("QueueNotFound".equals(code)) {
            return ": the queue does not exist (it is created with the VM: docs/approvals.md)";
        }
        if ("AuthorizationPermissionMismatch".equals(code) || "AuthorizationFailure".equals(code)) {
            return ": " + credential + " has no role allowing this on the queue (Storage Queue Data Message Processor)";
        }
        if (status == 401 || status == 403) {
            return ": " + credential + " was refused";
        }
        if (status >= 500) {
            return ": the queue service is failing or busy";
        }
        return "";
    }

    private static Duration seconds(String value) {
        try {
            long seconds = Long.parseLong(value.trim());
            return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, 3600));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String errorCode(byte[] body) {
        Matcher code = CODE.matcher(new String(body, StandardCharsets.UTF_8));
        try {
            return code.find() ? unescape(code.group(1)).trim() : null;
        } catch (RuntimeException notACode) {
            return null;
        }
    }

    /**
     * The service's answers are flat XML of known elements, text only: read with two patterns rather than an XML
     * parser (whose classes would cost the agent more memory than the rest of this client). No DTD, no entity but
     * XML's five and character references, so nothing an answer says is fetched or expanded.
     */
    private static Map<String, String> fields(String message) {
        Map<String, String> fields = new HashMap<>();
        Matcher field = FIELD.matcher(message);
        while (field.find()) {
            fields.put(field.group(1), unescape(field.group(2)));
        }
        return fields;
    }

    static String unescape(String text) {
        if (text.indexOf('&') < 0) {
            return text;
        }
        Matcher entity = ENTITY.matcher(text);
        StringBuilder out = new StringBuilder();
        while (entity.find()) {
            String name = entity.group(1);
            String value = switch (name) {
                case "lt" -> "<";
                case "gt" -> ">";
                case "amp" -> "&";
                case "quot" -> "\"";
                case "apos" -> "'";
                default -> {
                    int code = name.startsWith("#x") ? Integer.parseInt(name.substring(2), 16) : Integer.parseInt(name.substring(1));
                    yield new String(Character.toChars(code));
                }
            };
            entity.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        entity.appendTail(out);
        return out.toString();
    }

    private static String required(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no " + name);
        }
        return value;
    }

    private static Instant time(Map<String, String> fields, String name) {
        try {
            return Instant.from(RFC1123.parse(required(fields, name).trim()));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " is not a date");
        }
    }
}
