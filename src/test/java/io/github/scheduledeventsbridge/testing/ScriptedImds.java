package io.github.scheduledeventsbridge.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An IMDS look-alike whose answers a test controls: a document, or a fault (status code, truncated
 * JSON, empty 200, a hang). It checks the Metadata header like IMDS does and counts what it served.
 * With {@link #etags} it sends an ETag and answers a matching If-None-Match with 304, as IMDS may.
 */
public final class ScriptedImds implements AutoCloseable {

    public enum Mode { DOCUMENT, STATUS, TRUNCATED, EMPTY, HANG, DROP }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger documentsServed = new AtomicInteger();
    private final AtomicInteger faultsServed = new AtomicInteger();
    private final List<String> missingHeader = Collections.synchronizedList(new ArrayList<>());
    private volatile String document = Docs.document(1);
    private volatile Mode mode = Mode.DOCUMENT;
    private volatile int status = 500;
    private volatile String retryAfter;
    private volatile Duration hang = Duration.ZERO;
    private volatile Duration firstAnswerDelay = Duration.ZERO;
    private volatile int startRequestStatus = 200;
    private volatile boolean chunked;
    private final List<StartRequest> startRequests = Collections.synchronizedList(new ArrayList<>());
    private final List<Get> gets = Collections.synchronizedList(new ArrayList<>());
    private volatile UnaryOperator<String> etagOf;
    private final AtomicInteger unconditional304s = new AtomicInteger();
    private volatile int instanceStatus = 200;
    private final AtomicInteger instanceRequests = new AtomicInteger();

    /** A document GET as IMDS received it: its If-None-Match (null: none) and the status it was answered with. */
    public record Get(String ifNoneMatch, int status) {
    }

    /** An approval POST as IMDS received it. */
    public record StartRequest(String metadataHeader, String query, String contentType, String body) {
    }

    public ScriptedImds() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(executor);
        server.createContext("/metadata/scheduledevents", this::scheduledEvents);
        server.createContext("/metadata/instance/compute", ex -> {
            instanceRequests.incrementAndGet();
            int code = instanceStatus;
            answer(ex, code, code != 200 ? "{\"error\":\"scripted\"}" : compute("vm-under-test"));
        });
        // Another VM reading the same Scheduled Events (one event naming several VMs): /vm/<name>/compute.
        server.createContext("/vm/", ex -> answer(ex, 200, compute(ex.getRequestURI().getPath().split("/")[2])));
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/metadata/scheduledevents";
    }

    public String instanceUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/metadata/instance/compute";
    }

    /** Instance metadata naming this VM {@code vmName}, for a second agent beside the first (vm-under-test). */
    public String instanceUrl(String vmName) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/vm/" + vmName + "/compute";
    }

    private static String compute(String name) {
        return "{\"name\":\"" + name + "\",\"vmId\":\"11111111-2222-3333-4444-555555555555\","
                + "\"resourceId\":\"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
                + name + "\",\"location\":\"westeurope\"}";
    }

    public void serve(String json) {
        document = json;
        mode = Mode.DOCUMENT;
    }

    public void failWith(int statusCode, String retryAfterHeader) {
        status = statusCode;
        retryAfter = retryAfterHeader;
        mode = Mode.STATUS;
    }

    /** Documents are sent chunked, without Content-Length (as a proxy might), or with it (the default). */
    public void chunked(boolean on) {
        chunked = on;
    }

    public void serveTruncated() {
        mode = Mode.TRUNCATED;
    }

    public void serveEmpty() {
        mode = Mode.EMPTY;
    }

    /** Requests are read, then the connection is closed without any answer. */
    public void dropConnections() {
        mode = Mode.DROP;
    }

    public void hangFor(Duration duration) {
        hang = duration;
        mode = Mode.HANG;
    }

    /** The very first poll is answered (with the document) only after this delay, as IMDS may do. */
    public void delayFirstAnswer(Duration delay) {
        firstAnswerDelay = delay;
    }

    /** What IMDS answers to approvals (StartRequests POSTs): 200 by default. */
    public void answerStartRequestsWith(int status) {
        startRequestStatus = status;
    }

    /** What instance metadata (the VM's identity, vm-under-test) answers: 200 by default, else an error. */
    public void answerInstanceMetadataWith(int status) {
        instanceStatus = status;
    }

    public int instanceMetadataRequests() {
        return instanceRequests.get();
    }

    public List<StartRequest> startRequests() {
        return List.copyOf(startRequests);
    }

    /** Documents go out with the ETag this gives for their text; null: no ETag (the default). */
    public void etags(UnaryOperator<String> etagOfDocument) {
        etagOf = etagOfDocument;
    }

    /** The next {@code count} document GETs are answered 304 whatever they carry (a misbehaving IMDS). */
    public void answerNotModified(int count) {
        unconditional304s.set(count);
    }

    public List<Get> gets() {
        return List.copyOf(gets);
    }

    public void recover() {
        mode = Mode.DOCUMENT;
    }

    public int polls() {
        return polls.get();
    }

    public int documentsServed() {
        return documentsServed.get();
    }

    public int faultsServed() {
        return faultsServed.get();
    }

    public List<String> requestsWithoutMetadataHeader() {
        return List.copyOf(missingHeader);
    }

    private void scheduledEvents(HttpExchange exchange) throws IOException {
        try (exchange) {
            if ("POST".equals(exchange.getRequestMethod())) {
                startRequests.add(new StartRequest(exchange.getRequestHeaders().getFirst("Metadata"),
                        exchange.getRequestURI().getQuery(), exchange.getRequestHeaders().getFirst("Content-Type"),
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                answer(exchange, startRequestStatus, "");
                return;
            }
            int number = polls.incrementAndGet();
            if (!"true".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Metadata"))
                    || exchange.getRequestURI().getQuery() == null
                    || !exchange.getRequestURI().getQuery().contains("api-version=")) {
                missingHeader.add(exchange.getRequestURI().toString());
                answer(exchange, 400, "{\"error\":\"Bad request\"}");
                return;
            }
            if (number == 1 && !firstAnswerDelay.isZero()) {
                pause(firstAnswerDelay);
            }
            String doc = document;
            switch (mode) {
                case DOCUMENT -> {
                    UnaryOperator<String> tagger = etagOf;
                    String etag = tagger == null ? null : tagger.apply(doc);
                    String asked = exchange.getRequestHeaders().getFirst("If-None-Match");
                    boolean notModified = unconditional304s.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                            || etag != null && etag.equals(asked);
                    gets.add(new Get(asked, notModified ? 304 : 200));
                    if (etag != null) {
                        exchange.getResponseHeaders().add("ETag", etag);
                    }
                    answer(exchange, notModified ? 304 : 200, notModified ? "" : doc, chunked);
                    if (!notModified) {
                        documentsServed.incrementAndGet();
                    }
                }
                case STATUS -> {
                    faultsServed.incrementAndGet();
                    if (retryAfter != null) {
                        exchange.getResponseHeaders().add("Retry-After", retryAfter);
                    }
                    answer(exchange, status, "{\"error\":\"scripted\"}");
                }
                case TRUNCATED -> {
                    faultsServed.incrementAndGet();
                    answer(exchange, 200, doc.substring(0, doc.length() / 2));
                }
                case EMPTY -> {
                    faultsServed.incrementAndGet();
                    answer(exchange, 200, "");
                }
                case DROP -> {
                    faultsServed.incrementAndGet();
                    // No answer at all: the try-with-resources closes the exchange, which drops the connection.
                }
                case HANG -> {
                    faultsServed.incrementAndGet();
                    pause(hang);
                    answer(exchange, 200, doc);
                }
            }
        }
    }

    /** A server-side stall (the peer is slow), released early when the test closes the server. */
    private void pause(Duration duration) {
        try {
            closing.await(duration.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void answer(HttpExchange exchange, int code, String body) throws IOException {
        answer(exchange, code, body, false);
    }

    private static void answer(HttpExchange exchange, int code, String body, boolean chunked) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
        try {
            exchange.sendResponseHeaders(code, bytes.length == 0 ? -1 : chunked ? 0 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        } catch (IOException clientGone) {
            // The agent timed out and closed the connection: that is the point of a hang.
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
