package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Chromium;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged agent's Hawtio console in a real browser: Debian's headless Chromium, driven over the DevTools
 * protocol, is refused without credentials, logs in through the HTTP Basic challenge and shows the agent's live
 * Camel routes. Leaves a screenshot in target/hawtio-routes.png.
 */
class HawtioConsoleIT {

    private static final String USER = "operator";
    private static final String PASSWORD = "hawtio-it-Pa55word";

    @TempDir
    Path work;
    private AgentProcess agent;
    private String base;

    @BeforeEach
    void startAgent() throws Exception {
        // Not an assumption: CI installs Chromium (bin/install-prerequisites), so its absence is a failure.
        assertThat(Files.isExecutable(Chromium.BINARY))
                .as(Chromium.BINARY + " is missing: apt-get install chromium (bin/install-prerequisites installs it)")
                .isTrue();
        int port = FreePorts.unused();
        base = "http://127.0.0.1:" + port;
        agent = AgentProcess.start("hawtio", AgentProcess.env(
                "BRIDGE_SIMULATOR_ENABLED", "true",
                "BRIDGE_STATE_DIR", work.resolve("state").toString(),
                "BRIDGE_MANAGEMENT_PORT", Integer.toString(port),
                "BRIDGE_MANAGEMENT_USERNAME", USER,
                "BRIDGE_MANAGEMENT_PASSWORD", PASSWORD), Map.of(), work);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
            assertThat(agent.isAlive()).as("agent alive; log:%n%s", agent.output()).isTrue();
            return http.send(HttpRequest.newBuilder(URI.create(base + "/observe/health/live")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        });
    }

    @AfterEach
    void stopAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void aBrowserIsRefusedWithoutCredentialsThenLogsInAndSeesTheRoutes() throws Exception {
        AtomicReference<String> credentials = new AtomicReference<>(null);
        List<Integer> documentStatuses = new CopyOnWriteArrayList<>();
        try (Chromium browser = Chromium.launch(1400, 900)) {
            browser.on("Network.responseReceived", event -> {
                if ("Document".equals(event.path("type").asText())) {
                    documentStatuses.add(event.path("response").path("status").asInt());
                }
            });
            // Every request passes through here, so the HTTP Basic challenge is answered like a user would.
            browser.on("Fetch.requestPaused", event -> browser.sendLater("Fetch.continueRequest",
                    Map.of("requestId", event.path("requestId").asText())));
            browser.on("Fetch.authRequired", event -> {
                String login = credentials.get();
                browser.sendLater("Fetch.continueWithAuth", Map.of("requestId", event.path("requestId").asText(),
                        "authChallengeResponse", login == null ? Map.of("response", "CancelAuth")
                                : Map.of("response", "ProvideCredentials", "username", USER, "password", login)));
            });
            browser.send("Network.enable", Map.of());
            browser.send("Page.enable", Map.of());
            browser.send("Fetch.enable", Map.of("handleAuthRequests", true, "patterns", List.of(Map.of("urlPattern", "*"))));

            // 1. No credentials: the challenge is cancelled and the console stays shut.
            browser.navigate(base + "/hawtio/");
            await().atMost(Duration.ofSeconds(30)).until(() -> documentStatuses.contains(401));
            assertThat(browser.text()).contains("Authentication required");
            assertThat(browser.text()).doesNotContain("imds-poll");

            // 2. Log in and open the Camel plugin: its tree lists the agent's routes, live over Jolokia.
            credentials.set(PASSWORD);
            documentStatuses.clear();
            browser.navigate(base + "/hawtio/camel/routes");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() ->
                    documentStatuses.contains(200) && browser.text().contains("scheduled-events-bridge"));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                String text = browser.text();
                return text.contains("imds-poll") && text.contains("dispatch") && text.contains("record-document");
            });

            // 3. Select the tree's "routes" folder: the table shows each route's state and exchange counts.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> browser.evaluate("""
                    (() => {
                      const node = [...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'routes');
                      if (node) node.click();
                      return !!node;
                    })()""").asBoolean());
            Pattern started = Pattern.compile("imds-poll\\s+Started\\s+\\S+\\s+[1-9]");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                String text = browser.text();
                return text.contains("Route Diagram") && started.matcher(text).find();
            });
            Path screenshot = Path.of("target", "hawtio-routes.png");
            Files.write(screenshot, browser.screenshotPng());
            assertThat(Files.size(screenshot)).isGreaterThan(10_000);
            assertThat(browser.text()).contains("imds-poll", "dispatch", "webhook-attempt", "Completed")
                    .containsPattern("dispatch\\s+Started");
        }
        assertThat(agent.output()).as("the password is never logged").doesNotContain(PASSWORD);
    }
}
