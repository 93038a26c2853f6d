package io.github.scheduledeventsbridge.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A webhook target that records every request and answers with the status the test chooses. Each
 * request's signature is checked independently of the agent's code.
 */
public final class WebhookReceiver implements AutoCloseable {

    public record Request(String contentType, String timestamp, String signature, boolean signatureValid,
                          String body, JsonNode json, int answer, String method, String path, String rawQuery,
                          String authorization, java.time.Instant receivedAt, String userAgent,
                          java.util.Map<String, List<String>> headers) {
        /** A request header by name (any case), or null. */
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        public String id() {
            return json.path("id").asText();
        }

        public String transition() {
            return json.path("data").path("transition").asText();
        }

        public String eventId() {
            return json.path("data").path("eventId").asText();
        }

        public boolean delivered() {
            return answer >= 200 && answer < 300;
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final String secret;
    private final List<Request> requests = new ArrayList<>();
    private volatile int answer = 200;
    private volatile java.time.Duration delay = java.time.Duration.ZERO;
    private volatile java.util.function.Function<JsonNode, Answer> script;
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger mostInFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** While not null: how many more requests are answered before the next ones are held ({@link #holdAfter}). */
    private volatile java.util.concurrent.atomic.AtomicInteger passes;
    private volatile java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(0);
    private final java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();

    /** What a scripted receiver answers: a status and, when not null, a Retry-After header. */
    public record Answer(int status, String retryAfter) {
        public static Answer of(int status) {
            return new Answer(status, null);
        }
    }

    public WebhookReceiver(String secret) throws IOException {
        this.secret = secret;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    /** This receiver's base URL with another path and query, e.g. {@code /api/fn?code=abc%2Bdef}. */
    public String url(String pathAndQuery) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery;
    }

    /** Each request's answer chosen from its JSON body (requests are handled one at a time). */
    public void script(java.util.function.Function<JsonNode, Answer> script) {
        this.script = script;
    }

    /** 200 = up; 503 (or any other) = the target is failing. */
    public void answerWith(int status) {
        answer = status;
    }

    /** A slow target: every answer comes after this delay. */
    public void answerAfter(java.time.Duration delay) {
        this.delay = delay;
    }

    /**
     * A receiver that stops answering in the middle: the next {@code answered} requests are answered as usual, the
     * ones after them get no answer at all until {@link #release} (then 503, recorded as failed attempts).
     */
    public void holdAfter(int answered) {
        holding = new java.util.concurrent.CountDownLatch(1);
        passes = new java.util.concurrent.atomic.AtomicInteger(answered);
    }

    /** Held requests are answered (503), and later ones as usual again. */
    public void release() {
        passes = null;
        holding.countDown();
    }

    /** Requests waiting for an answer since {@link #holdAfter}. */
    public int held() {
        return held.get();
    }

    public synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    public synchronized List<Request> delivered() {
        return requests.stream().filter(Request::delivered).toList();
    }

    public synchronized List<Request> failedAttempts() {
        return requests.stream().filter(r -> !r.delivered()).toList();
    }

    /** The most requests this receiver was handling at the same time (it handles up to four at once). */
    public int mostAtOnce() {
        return mostInFlight.get();
    }

    /** Transitions delivered for one event, in arrival order. */
    public List<String> transitionsOf(String eventId) {
        return delivered().stream().filter(r -> r.eventId().equalsIgnoreCase(eventId)).map(Request::transition).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        boolean answered = false;
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String timestamp = exchange.getRequestHeaders().getFirst("X-Bridge-Timestamp");
            String signature = exchange.getRequestHeaders().getFirst("X-Bridge-Signature");
            int status = answer;
            String retryAfter = null;
            java.util.concurrent.atomic.AtomicInteger passing = passes;
            if (passing != null && passing.getAndDecrement() <= 0) {
                held.incrementAndGet();
                try {
                    holding.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    held.decrementAndGet();
                }
                status = 503;
            }
            if (!delay.isZero()) {
                try {
                    new java.util.concurrent.CountDownLatch(1).await(delay.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            JsonNode json;
            try {
                json = MAPPER.readTree(body);
            } catch (IOException e) {
                json = MAPPER.createObjectNode();
            }
            synchronized (this) {
                java.util.function.Function<JsonNode, Answer> scripted = script;
                if (scripted != null) {
                    Answer chosen = scripted.apply(json);
                    status = chosen.status();
                    retryAfter = chosen.retryAfter();
                }
                requests.add(new Request(exchange.getRequestHeaders().getFirst("Content-Type"), timestamp, signature,
                        signature != null && signature.equals(expectedSignature(timestamp, body)),
                        new String(body, StandardCharsets.UTF_8), json, status, exchange.getRequestMethod(),
                        exchange.getRequestURI().getRawPath(), exchange.getRequestURI().getRawQuery(),
                        exchange.getRequestHeaders().getFirst("Authorization"), java.time.Instant.now(),
                        exchange.getRequestHeaders().getFirst("User-Agent"),
                        java.util.Map.copyOf(exchange.getRequestHeaders())));
            }
            if (retryAfter != null) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter);
            }
            // No longer counted before the answer leaves: the sender's next request may follow at once.
            answered = true;
            inFlight.decrementAndGet();
            exchange.sendResponseHeaders(status, -1);
        } finally {
            if (!answered) {
                inFlight.decrementAndGet();
            }
        }
    }

    /** Computed independently of the agent's signer, the way a receiver would. */
    private String expectedSignature(String timestamp, byte[] body) {
        return secret == null || timestamp == null ? null : ApprovalClient.sign(secret, timestamp, body);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    public static WebhookReceiver start(String secret) {
        try {
            return new WebhookReceiver(secret);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
