package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.RawSockets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the management credential can and cannot do, over real HTTP against a running agent: Hawtio's Jolokia is
 * read-only and shows no secret, wrong logins are throttled, other origins are refused, anonymous probes say UP
 * or DOWN and nothing else.
 */
class ManagementSecurityTest {

    private static final String USER = "operator";
    private static final String PASSWORD = "correct-horse-battery";
    private static final String SMTP_PASSWORD = "smtp-Pa55-9f2c1e";
    private static final String SHARED_ACCESS_KEY = "c2VjcmV0LWtleS1ub3QtdG8tYmUtc2Vlbg==";
    private static final String CONTEXT = "org.apache.camel:context=scheduled-events-bridge,type=context,"
            + "name=\"scheduled-events-bridge\"";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.simulator()
            .with("bridge.management.username", USER)
            .with("bridge.management.password", PASSWORD);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private void start(String... keyValues) throws Exception {
        fixture.start(keyValues);
    }

    private String base() {
        return "http://127.0.0.1:" + fixture.agent().managementPort();
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String password) throws Exception {
        if (password != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((USER + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String password) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base() + path)), password);
    }

    /** One Jolokia request (POST, JSON), answered as Jolokia's JSON. */
    private JsonNode jolokia(Map<String, Object> request) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base() + "/hawtio/jolokia/"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))), PASSWORD);
        assertThat(response.statusCode()).as(response.body()).isIn(200, 403);
        return JSON.readTree(response.body());
    }

    private static void assertRefused(JsonNode answer) {
        assertThat(answer.path("status").asInt()).as(answer.toString()).isEqualTo(403);
        assertThat(answer.has("value")).as(answer.toString()).isFalse();
    }

    @Test
    void hawtiosJolokiaReadsStatisticsButRefusesOperationsWritesAndSecretBearingAttributes() throws Exception {
        start();
        String poll = "org.apache.camel:context=scheduled-events-bridge,type=routes,name=\"imds-poll\"";
        // What the routes view needs still works.
        assertThat(jolokia(Map.of("type", "read", "mbean", poll, "attribute", "State")).path("value").asText())
                .isEqualTo("Started");
        // All attributes, as Hawtio's routes table reads them (ignoreErrors): the refused ones come as errors.
        JsonNode route = jolokia(Map.of("type", "read", "mbean", poll, "config", Map.of("ignoreErrors", true)));
        assertThat(route.path("status").asInt()).as(route.toString()).isEqualTo(200);
        assertThat(route.path("value").path("ExchangesTotal").isNumber()).as(route.toString()).isTrue();
        assertThat(route.path("value").path("State").asText()).isEqualTo("Started");
        assertThat(route.path("value").path("EndpointUri").toString()).as("no endpoint URI").doesNotContain("timer:");
        assertThat(jolokia(Map.of("type", "read", "mbean", "java.lang:type=Memory", "attribute", "HeapMemoryUsage"))
                .path("value").path("used").asLong()).isPositive();
        assertThat(jolokia(Map.of("type", "read", "mbean", "io.github.scheduledeventsbridge:type=Spool",
                "attribute", "TotalDepth")).path("status").asInt()).isEqualTo(200);

        // Operations: diagnostics, route dumps, sending a message (an IMDS approval without the HMAC), stopping.
        assertRefused(jolokia(Map.of("type", "exec", "mbean", "com.sun.management:type=DiagnosticCommand",
                "operation", "vmSystemProperties", "arguments", List.of(List.of()))));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", "com.sun.management:type=DiagnosticCommand",
                "operation", "vmFlags", "arguments", List.of(List.of()))));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", CONTEXT, "operation", "dumpRoutesAsYaml()")));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", CONTEXT, "operation", "dumpRoutesAsXml()")));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", CONTEXT,
                "operation", "sendStringBody(java.lang.String,java.lang.String)",
                "arguments", List.of("direct:imds-start-requests", "{\"StartRequests\":[{\"EventId\":\"x\"}]}"))));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", poll, "operation", "stop()")));
        assertRefused(jolokia(Map.of("type", "exec", "mbean", "java.lang:type=Threading",
                "operation", "dumpAllThreads(boolean,boolean)", "arguments", List.of(false, false))));
        // Writes.
        assertRefused(jolokia(Map.of("type", "write", "mbean", "java.lang:type=Memory", "attribute", "Verbose",
                "value", true)));
        assertRefused(jolokia(Map.of("type", "write", "mbean", poll, "attribute", "Tracing", "value", true)));
        // Reads that carry secrets.
        assertRefused(jolokia(Map.of("type", "read", "mbean", "java.lang:type=Runtime", "attribute", "SystemProperties")));
        assertRefused(jolokia(Map.of("type", "read", "mbean", "java.lang:type=Runtime", "attribute", "InputArguments")));
        assertRefused(jolokia(Map.of("type", "read", "mbean", poll, "attribute", "EndpointUri")));
        assertRefused(jolokia(Map.of("type", "read", "mbean", "com.sun.management:type=HotSpotDiagnostic",
                "attribute", "DiagnosticOptions")));
        // The diagnostic MBeans are not even listed, nor Camel's endpoints (their names are endpoint URIs).
        HttpResponse<String> list = get("/hawtio/jolokia/list/com.sun.management", PASSWORD);
        assertThat(list.body()).doesNotContain("DiagnosticCommand", "HotSpotDiagnostic");
        assertThat(get("/hawtio/jolokia/search/org.apache.camel:type=endpoints,*", PASSWORD).body())
                .doesNotContain("timer:", "http:", "direct:");
        assertThat(get("/hawtio/jolokia/list/org.apache.camel", PASSWORD).body())
                .contains("type=routes").doesNotContain("type=endpoints");
    }

    @Test
    void readOnlyCanBeLiftedByTheOperator() throws Exception {
        start("bridge.management.read-only", "false");
        JsonNode flags = jolokia(Map.of("type", "exec", "mbean", "com.sun.management:type=DiagnosticCommand",
                "operation", "vmFlags", "arguments", List.of(List.of())));
        assertThat(flags.path("status").asInt()).as(flags.toString()).isEqualTo(200);
    }

    @Test
    void routeDumpsAndEndpointsCarryNoSinkSecrets() throws Exception {
        // Even with the console unrestricted, what Camel can show holds neither the SMTP password nor the key.
        start("bridge.management.read-only", "false",
                "bridge.email.host", "127.0.0.1", "bridge.email.port", "1",
                "bridge.email.username", "bridge", "bridge.email.password", SMTP_PASSWORD,
                "bridge.email.from", "bridge@example.org", "bridge.email.to", "ops@example.org",
                "bridge.eventhubs.connection-string", "Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=send;"
                        + "SharedAccessKey=" + SHARED_ACCESS_KEY + ";EntityPath=hub;UseDevelopmentEmulator=true");
        StringBuilder everything = new StringBuilder();
        // dumpRoutesAsXml always works; the YAML dumps need camel-yaml-io, which the agent may not carry.
        for (String operation : List.of("dumpRoutesAsXml()", "dumpRoutesAsXml(boolean)", "dumpRouteTemplatesAsXml()",
                "dumpRoutesAsYaml()", "dumpRoutesAsYaml(boolean,boolean)")) {
            Map<String, Object> request = operation.contains("boolean,")
                    ? Map.of("type", "exec", "mbean", CONTEXT, "operation", operation, "arguments", List.of(true, true))
                    : operation.contains("boolean")
                    ? Map.of("type", "exec", "mbean", CONTEXT, "operation", operation, "arguments", List.of(true))
                    : Map.of("type", "exec", "mbean", CONTEXT, "operation", operation);
            JsonNode dump = jolokia(request);
            assertThat(dump.path("status").asInt()).as(operation + ": " + dump).isNotEqualTo(403);
            if (operation.equals("dumpRoutesAsXml()")) {
                assertThat(dump.path("status").asInt()).as(operation + ": " + dump).isEqualTo(200);
            }
            everything.append(dump.path("value").asText());
        }
        everything.append(get("/hawtio/jolokia/read/org.apache.camel:type=endpoints,*/EndpointUri", PASSWORD).body());
        everything.append(get("/hawtio/jolokia/read/org.apache.camel:type=processors,*", PASSWORD).body());
        assertThat(everything.toString()).contains("email-attempt", "eventhubs-attempt")
                .doesNotContain(SMTP_PASSWORD, SHARED_ACCESS_KEY);
    }

    @Test
    void aFewWrongLoginsFromTheOperatorsAddressDoNotLockTheOperatorNorTheScraperOut() throws Exception {
        start();
        assertThat(get("/metrics", PASSWORD).statusCode()).as("the scraper on 127.0.0.1").isEqualTo(200);
        for (int i = 0; i < 5; i++) {
            assertThat(get("/metrics", "wrong-" + i).statusCode()).isEqualTo(401);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(get("/metrics", PASSWORD).statusCode()).as("scrape %d after five typos", i).isEqualTo(200);
        }
        assertThat(get("/observe/health/live", null).statusCode()).as("probes answer anyway").isEqualTo(200);
    }

    @Test
    void guessingFromRotatingLoopbackAddressesIsThrottledAndTheOperatorStillGetsIn() throws Exception {
        start();
        int port = fixture.agent().managementPort();
        assertThat(get("/metrics", PASSWORD).statusCode()).as("the operator's tunnel on 127.0.0.1").isEqualTo(200);
        Map<String, Integer> statuses = new TreeMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < 600; i++) {
            // Every guess from another source address: any local process may pick any 127.x.y.z.
            String answer = RawSockets.exchangeFrom("127.0." + (1 + i / 200) + "." + (1 + i % 200), port,
                    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Basic "
                            + Base64.getEncoder().encodeToString((USER + ":guess-" + i).getBytes(StandardCharsets.UTF_8))
                            + "\r\n\r\n", Duration.ofSeconds(10));
            statuses.merge(answer.isEmpty() ? "none" : answer.substring(9, 12), 1, Integer::sum);
        }
        long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        // Loopback is one network: 10 wrong logins at once, then one per 10 s.
        assertThat(statuses.getOrDefault("401", 0)).as("passwords checked, of 600 guesses in %d s: %s", seconds, statuses)
                .isLessThanOrEqualTo(10 + (int) (seconds / 10) + 1);
        assertThat(statuses.getOrDefault("429", 0) + statuses.getOrDefault("401", 0)).as("%s", statuses).isEqualTo(600);
        assertThat(get("/metrics", PASSWORD).statusCode()).as("the operator, who logged in before").isEqualTo(200);
        // A stranger on that network with the right password waits like the guessers: nothing tells them apart.
        String stranger = RawSockets.exchangeFrom("127.0.9.9", port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Connection: close\r\nAuthorization: Basic " + Base64.getEncoder().encodeToString(
                (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)) + "\r\n\r\n", Duration.ofSeconds(10));
        assertThat(stranger).startsWith("HTTP/1.1 429").containsPattern("Retry-After: (10|[1-9])\r\n");
    }

    /**
     * Wrong logins from the operator's own address (a local user beside the SSH tunnel: both come from 127.0.0.1)
     * spend that address's budget; the operator's client, which keeps the cookie of its good login, is still checked
     * and let in. Without the cookie the right password waits like the guesses: no password oracle.
     */
    @Test
    void wrongLoginsFromTheOperatorsAddressDoNotLockOutTheClientHoldingItsLoginCookie() throws Exception {
        start();
        int port = fixture.agent().managementPort();
        String first = RawSockets.exchange(port, scrape(PASSWORD, null), Duration.ofSeconds(10));
        assertThat(first).startsWith("HTTP/1.1 200");
        Matcher cookie = Pattern.compile("(?i)\r\nSet-Cookie: (seb_login=[A-Za-z0-9_-]+);([^\r]*)").matcher(first);
        assertThat(cookie.find()).as(first.lines().limit(12).toList().toString()).isTrue();
        assertThat(cookie.group(2)).contains("HttpOnly").contains("SameSite=Strict").contains("Path=/");
        for (int i = 0; i < 12; i++) {
            RawSockets.exchange(port, scrape("wrong-" + i, null), Duration.ofSeconds(10));
        }
        assertThat(RawSockets.exchange(port, scrape(PASSWORD, null), Duration.ofSeconds(10)))
                .as("the right password alone, from the throttled address").startsWith("HTTP/1.1 429");
        for (int i = 0; i < 5; i++) {
            String withCookie = RawSockets.exchange(port, scrape(PASSWORD, cookie.group(1)), Duration.ofSeconds(10));
            assertThat(withCookie).as("scrape %d with the login cookie", i).startsWith("HTTP/1.1 200")
                    .doesNotContain("Set-Cookie");
        }
        assertThat(RawSockets.exchange(port, scrape("typo", cookie.group(1)), Duration.ofSeconds(10)))
                .as("a wrong password with the cookie is checked").startsWith("HTTP/1.1 401");
        assertThat(RawSockets.exchange(port, scrape(PASSWORD, "seb_login=made-up-token"), Duration.ofSeconds(10)))
                .as("a made-up cookie counts for nothing").startsWith("HTTP/1.1 429");
    }

    private static String scrape(String password, String cookie) {
        return "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Basic "
                + Base64.getEncoder().encodeToString((USER + ":" + password).getBytes(StandardCharsets.UTF_8)) + "\r\n"
                + (cookie == null ? "" : "Cookie: theme=dark; " + cookie + "\r\n") + "\r\n";
    }

    @Test
    void otherOriginsAreRefusedAndNeverReflected() throws Exception {
        start();
        HttpResponse<String> evil = send(HttpRequest.newBuilder(URI.create(base() + "/hawtio/jolokia/version"))
                .header("Origin", "https://evil.example"), PASSWORD);
        assertThat(evil.headers().allValues("Access-Control-Allow-Origin")).doesNotContain("https://evil.example");
        assertThat(evil.headers().allValues("Access-Control-Allow-Credentials")).isEmpty();
        assertThat(evil.statusCode()).isEqualTo(403);
        HttpResponse<String> preflight = send(HttpRequest.newBuilder(URI.create(base() + "/hawtio/jolokia/"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://evil.example").header("Access-Control-Request-Method", "POST"), null);
        assertThat(preflight.headers().allValues("Access-Control-Allow-Origin")).isEmpty();

        HttpResponse<String> same = send(HttpRequest.newBuilder(URI.create(base() + "/hawtio/jolokia/version"))
                .header("Origin", base()), PASSWORD);
        assertThat(same.statusCode()).isEqualTo(200);
        assertThat(same.body()).contains("\"agent\"");
        // Behind a TLS proxy that passes X-Forwarded-Host, the browser's https origin is this server too.
        HttpResponse<String> proxied = send(HttpRequest.newBuilder(URI.create(base() + "/hawtio/jolokia/version"))
                .header("Origin", "https://console.example.org").header("X-Forwarded-Host", "console.example.org"),
                PASSWORD);
        assertThat(proxied.statusCode()).isEqualTo(200);
    }

    @Test
    void anonymousProbesSayUpOrDownAndNothingElse() throws Exception {
        start();
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/observe/health/ready", null).statusCode() == 200);
        for (String probe : List.of("/observe/health/live", "/observe/health/ready")) {
            HttpResponse<String> anonymous = get(probe, null);
            assertThat(JSON.readTree(anonymous.body())).as(probe)
                    .isEqualTo(JSON.readTree("{\"status\":\"UP\"}"));
            assertThat(get(probe + "?details", null).statusCode()).as(probe).isEqualTo(401);
            JsonNode details = JSON.readTree(get(probe + "?details", PASSWORD).body());
            assertThat(details.path("checks").findValuesAsText("id")).as(probe).contains("context");
        }
        assertThat(get("/observe/health/ready", null).body()).doesNotContain("imds-poll", "route:", "webhook");
    }

    @Test
    void shortOrPlaceholderManagementPasswordsStopStartUp() {
        for (String weak : List.of("x", "fifteen-chars-1", "change-me", "change-me-to-something-long", "abababababababababab",
                "replace-me-with-a-long-random-one", "${MANAGEMENT_PASSWORD_FROM_THE_VAULT}")) {
            assertThatThrownBy(() -> InProcessAgent.builder(fixture.state()).with("bridge.management.username", USER)
                    .with("bridge.management.password", weak).start().close())
                    .as(weak).hasStackTraceContaining("Bad configuration: bridge.management.password:")
                    .satisfies(e -> assertThat(rootMessage(e)).doesNotContain(weak.length() > 3 ? weak : "\u0000"));
        }
    }

    private static String rootMessage(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
