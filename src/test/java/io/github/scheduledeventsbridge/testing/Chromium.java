package io.github.scheduledeventsbridge.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * Debian's headless Chromium driven over the DevTools protocol: a WebSocket (the JDK's) to the browser, one page
 * attached in flat session mode. No driver download, no Selenium: the protocol's JSON, spoken directly.
 */
public final class Chromium implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final ObjectMapper json = new ObjectMapper();
    private final Process process;
    private final Path profile;
    private final Path log;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<Map.Entry<String, Consumer<JsonNode>>> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> new Thread(r, "cdp-events"));
    private WebSocket socket;
    private String session;

    private Chromium(Process process, Path profile, Path log) {
        this.process = process;
        this.profile = profile;
        this.log = log;
    }

    /** Starts Chromium with a fresh profile and opens one blank page of the given size. */
    public static Chromium launch(int width, int height) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException(BINARY + " is missing: install Debian's Chromium "
                    + "(apt-get install chromium; bin/install-prerequisites does it)");
        }
        Path logs = Path.of("target", "it-logs");
        Files.createDirectories(logs);
        Path profile = Files.createTempDirectory("seb-chromium-");
        Path log = logs.resolve("chromium-" + RUNS.incrementAndGet() + ".log").toAbsolutePath();
        List<String> command = List.of(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--user-data-dir=" + profile, "--remote-debugging-port=0",
                "--window-size=" + width + "," + height, "about:blank");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Chromium chromium = new Chromium(process, profile, log);
        try {
            chromium.connect();
            JsonNode target = chromium.browserCommand("Target.createTarget", Map.of("url", "about:blank"));
            JsonNode attached = chromium.browserCommand("Target.attachToTarget",
                    Map.of("targetId", target.path("targetId").asText(), "flatten", true));
            chromium.session = attached.path("sessionId").asText();
            chromium.send("Emulation.setDeviceMetricsOverride",
                    Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
            return chromium;
        } catch (Exception | Error e) {
            chromium.close();
            throw e;
        }
    }

    /** Chromium writes the port it chose, and the browser's WebSocket path, into its profile. */
    private void connect() throws Exception {
        Path activePort = profile.resolve("DevToolsActivePort");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("Chromium exited: " + Files.readString(log));
            }
            return Files.isRegularFile(activePort) && Files.readAllLines(activePort).size() >= 2;
        });
        List<String> lines = Files.readAllLines(activePort);
        URI endpoint = URI.create("ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim());
        socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                .buildAsync(endpoint, new Listener()).get(30, TimeUnit.SECONDS);
    }

    /** A command to the page; answers its {@code result}, or fails with the protocol's error. */
    public JsonNode send(String method, Map<String, ?> params) {
        return command(method, params, session);
    }

    private JsonNode browserCommand(String method, Map<String, ?> params) {
        return command(method, params, null);
    }

    private JsonNode command(String method, Map<String, ?> params, String sessionId) {
        try {
            return commandAsync(method, params, sessionId).get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(method + " failed: " + e.getMessage(), e);
        }
    }

    private CompletableFuture<JsonNode> commandAsync(String method, Map<String, ?> params, String sessionId) {
        int id = ids.incrementAndGet();
        ObjectNode message = json.createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", json.valueToTree(params));
        if (sessionId != null) {
            message.put("sessionId", sessionId);
        }
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        synchronized (this) {
            socket.sendText(message.toString(), true).join();
        }
        return answer;
    }

    /** Calls {@code handler} with the params of every {@code method} event of the page, on one event thread. */
    public void on(String method, Consumer<JsonNode> handler) {
        listeners.add(Map.entry(method, handler));
    }

    /** Fire-and-forget command from an event handler (it must not block the event thread). */
    public void sendLater(String method, Map<String, ?> params) {
        commandAsync(method, params, session);
    }

    /** The value of a JavaScript expression in the page (awaited if it is a promise). */
    public JsonNode evaluate(String expression) {
        JsonNode result = send("Runtime.evaluate",
                Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException("JavaScript failed: " + result.path("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    public void navigate(String url) {
        JsonNode result = send("Page.navigate", Map.of("url", url));
        if (result.hasNonNull("errorText")) {
            throw new IllegalStateException("navigation to " + url + " failed: " + result.path("errorText").asText());
        }
    }

    /** The page's visible text, empty while there is no body. */
    public String text() {
        return evaluate("document.body ? document.body.innerText : ''").asText();
    }

    public byte[] screenshotPng() {
        return Base64.getDecoder().decode(send("Page.captureScreenshot", Map.of("format", "png")).path("data").asText());
    }

    @Override
    public void close() throws Exception {
        try {
            if (socket != null && process.isAlive()) {
                commandAsync("Browser.close", Map.of(), null).get(10, TimeUnit.SECONDS);
            }
        } catch (Exception ignored) {
            // killed below
        } finally {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            events.shutdownNow();
            deleteProfile();
        }
    }

    private void deleteProfile() throws IOException {
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void dispatch(String text) {
        JsonNode message;
        try {
            message = json.readTree(text);
        } catch (IOException e) {
            return;
        }
        if (message.has("id")) {
            CompletableFuture<JsonNode> answer = pending.remove(message.path("id").asInt());
            if (answer != null) {
                if (message.has("error")) {
                    answer.completeExceptionally(new IllegalStateException(message.path("error").toString()));
                } else {
                    answer.complete(message.path("result"));
                }
            }
            return;
        }
        String method = message.path("method").asText();
        for (Map.Entry<String, Consumer<JsonNode>> listener : listeners) {
            if (listener.getKey().equals(method)) {
                events.execute(() -> listener.getValue().accept(message.path("params")));
            }
        }
    }

    private final class Listener implements WebSocket.Listener {
        private final List<CharSequence> parts = new ArrayList<>();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            parts.add(data.toString());
            if (last) {
                String text = String.join("", parts);
                parts.clear();
                dispatch(text);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, java.nio.ByteBuffer data, boolean last) {
            dispatch(StandardCharsets.UTF_8.decode(data).toString());
            webSocket.request(1);
            return null;
        }
    }
}
