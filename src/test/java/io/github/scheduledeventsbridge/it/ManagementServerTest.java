package io.github.scheduledeventsbridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.scheduledeventsbridge.management.ManagementServer;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import org.apache.camel.ServiceStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The management port over real HTTP, with the agent running on its built-in simulator. */
class ManagementServerTest {

    private static final String USER = "operator";
    private static final String PASSWORD = "correct-horse-battery";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.simulator();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private InProcessAgent start(String... keyValues) throws Exception {
        return fixture.start(keyValues);
    }

    private ManagementServer server() {
        return fixture.agent().bean(ManagementServer.BEAN_NAME, ManagementServer.class);
    }

    private HttpResponse<String> get(String path, String user, String password) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server().port() + path))
                .timeout(Duration.ofSeconds(60));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return get(path, null, null);
    }

    @Test
    void livenessIsUpWhileTheAgentRunsAndThePortClosesWithIt() throws Exception {
        start();
        int port = server().port();
        assertThat(port).isPositive();

        HttpResponse<String> live = get("/observe/health/live?details");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode body = JSON.readTree(live.body());
        assertThat(body.path("status").asText()).isEqualTo("UP");
        assertThat(body.path("camelContext").asText()).isEqualTo("Started");
        assertThat(body.path("checks").findValuesAsText("id")).contains("context");

        fixture.agent().close();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void readinessListsEveryRegisteredCheckWithItsStateAndDetails() throws Exception {
        start();
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/observe/health/ready").statusCode() == 200);
        JsonNode ready = JSON.readTree(get("/observe/health/ready?details").body());
        assertThat(ready.path("status").asText()).isEqualTo("UP");
        assertThat(ready.path("checks").isArray()).isTrue();
        assertThat(ready.path("checks")).isNotEmpty().allSatisfy(check -> {
            assertThat(check.path("id").asText()).isNotEmpty();
            assertThat(check.path("status").asText()).isEqualTo("UP");
        });
        assertThat(ready.path("checks").findValuesAsText("id")).contains("context", "route:imds-poll", "consumer:imds-poll");
        JsonNode context = findCheck(ready, "context");
        assertThat(context.path("group").asText()).isEqualTo("camel");
        assertThat(context.path("details").path("context.name").asText()).isEqualTo("scheduled-events-bridge");
        assertThat(findCheck(ready, "route:imds-poll").path("details").path("route.status").asText()).isEqualTo("Started");

        JsonNode live = JSON.readTree(get("/observe/health/live?details").body());
        assertThat(live.path("checks").findValuesAsText("id")).contains("context").doesNotContain("route:imds-poll");

        JsonNode all = JSON.readTree(get("/observe/health").body());
        assertThat(all.path("checks").findValuesAsText("id")).containsAll(ready.path("checks").findValuesAsText("id"));
        assertThat(get("/observe/health/ready/").statusCode()).as("a trailing slash is fine").isEqualTo(200);
        assertThat(get("/observe/nothing").statusCode()).isEqualTo(404);
    }

    @Test
    void metricsAreInPrometheusTextFormatWithRouteAndJvmSeries() throws Exception {
        start();
        Pattern polls = Pattern.compile("(?m)^camel_exchanges_total\\{[^}]*routeId=\"imds-poll\"[^}]*} (\\d+(\\.\\d+)?)");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Matcher m = polls.matcher(get("/metrics").body());
            return m.find() && Double.parseDouble(m.group(1)) >= 2;
        });
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(metrics.body())
                .contains("# TYPE camel_exchanges_total counter")
                .containsPattern("camel_route_policy_seconds_count\\{[^}]*routeId=\"imds-poll\"")
                .containsPattern("camel_exchanges_succeeded_total\\{[^}]*routeId=\"dispatch\"")
                .containsPattern("(?m)^jvm_memory_used_bytes\\{")
                .containsPattern("(?m)^jvm_threads_live_threads ")
                .containsPattern("(?m)^jvm_gc_memory_allocated_bytes_total ")
                .containsPattern("(?m)^process_cpu_usage ")
                .containsPattern("(?m)^process_uptime_seconds ");
        // Camel's exchange event notifier stays off (camel.metrics.enable-exchange-event-notifier=false): it would
        // label timings with endpoint URIs, and a webhook URL (Slack, Teams) carries its secret in the path.
        assertThat(metrics.body()).doesNotContain("endpointName=");
        assertThat(get("/metrics").body()).as("a second scrape works too").contains("camel_exchanges_total");
    }

    @Test
    void withCredentialsEverythingButTheProbesNeedsThemAndHawtioShowsTheRoutes() throws Exception {
        start("bridge.management.username", USER, "bridge.management.password", PASSWORD);

        HttpResponse<String> anonymous = get("/hawtio/");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
        assertThat(get("/hawtio/", USER, "wrong").statusCode()).isEqualTo(401);
        assertThat(get("/hawtio/", "someone", PASSWORD).statusCode()).isEqualTo(401);
        assertThat(get("/hawtio/jolokia/version").statusCode()).isEqualTo(401);
        assertThat(get("/metrics").statusCode()).isEqualTo(401);
        assertThat(get("/observe/health").statusCode()).isEqualTo(401);

        // The probes answer anyone, without the details.
        HttpResponse<String> live = get("/observe/health/live");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(live.body()).path("checks").findValues("details")).isEmpty();
        JsonNode liveWithLogin = JSON.readTree(get("/observe/health/live?details", USER, PASSWORD).body());
        assertThat(findCheck(liveWithLogin, "context").path("details").path("context.status").asText()).isEqualTo("Started");
        assertThat(get("/metrics", USER, PASSWORD).body()).contains("camel_exchanges_total");

        // The console itself, started on this first request.
        HttpResponse<String> console = get("/hawtio/", USER, PASSWORD);
        assertThat(console.statusCode()).isEqualTo(200);
        assertThat(console.body()).contains("<base href=\"/hawtio/\">", "Hawtio");

        // What its Camel plugin reads: the route MBeans, through the WAR's Jolokia.
        HttpResponse<String> routes = get("/hawtio/jolokia/search/org.apache.camel:type=routes,*", USER, PASSWORD);
        assertThat(routes.statusCode()).isEqualTo(200);
        assertThat(routes.body()).contains("name=\\\"imds-poll\\\"", "name=\\\"dispatch\\\"");
        HttpResponse<String> poll = get("/hawtio/jolokia/read/org.apache.camel:context=scheduled-events-bridge,"
                + "type=routes,name=%22imds-poll%22/State", USER, PASSWORD);
        assertThat(JSON.readTree(poll.body()).path("value").asText()).isEqualTo("Started");
    }

    @Test
    void withoutCredentialsItListensOnLoopbackOnlyAndTheConsoleIsOff() throws Exception {
        start("bridge.management.host", "0.0.0.0");
        ManagementServer server = server();
        assertThat(server.host()).isEqualTo("127.0.0.1");
        assertThat(server.address().getAddress().isLoopbackAddress()).isTrue();
        assertThat(get("/observe/health/live").statusCode()).isEqualTo(200);

        Optional<InetAddress> other = nonLoopbackAddress();
        if (other.isPresent()) {
            try (Socket socket = new Socket()) {
                assertThatThrownBy(() -> socket.connect(new InetSocketAddress(other.get(), server.port()), 2_000))
                        .as("connecting through %s", other.get()).isInstanceOf(ConnectException.class);
            }
        }

        HttpResponse<String> console = get("/hawtio/");
        assertThat(console.statusCode()).isEqualTo(404);
        assertThat(console.body()).contains("bridge.management.username");
        assertThat(get("/metrics").statusCode()).as("metrics stay readable locally").isEqualTo(200);
    }

    @Test
    void aBusyPortLeavesTheAgentRunningWithoutTheServer() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            start("bridge.management.port", Integer.toString(busy.getLocalPort()));
            assertThat(server().port()).isEqualTo(-1);
            assertThat(fixture.agent().context().getStatus()).isEqualTo(ServiceStatus.Started);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> fixture.agent().context().getRouteController().getRouteStatus("imds-poll") == ServiceStatus.Started);
        }
    }

    @Test
    void theSpoolMxBeanIsAmongCamelsMBeansWithAConsoleUnderItsDocumentedNameAndLeavesWithTheAgent() throws Exception {
        javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        javax.management.ObjectName spool = new javax.management.ObjectName("io.github.scheduledeventsbridge:type=Spool");
        start("bridge.management.username", USER, "bridge.management.password", PASSWORD,
                "bridge.webhook.urls", "http://127.0.0.1:9/hook", "bridge.webhook.secret", "s");
        await().atMost(Duration.ofSeconds(30)).until(() -> server().port() > 0);
        assertThat(jmx.isRegistered(spool)).isTrue();
        assertThat(jmx.getAttribute(spool, "TotalDepth")).isInstanceOf(Long.class);
        javax.management.openmbean.TabularData depth = (javax.management.openmbean.TabularData) jmx.getAttribute(spool,
                "DepthBySink");
        assertThat(depth.get(new Object[] {"webhook 127.0.0.1:9"})).as(String.valueOf(depth)).isNotNull();
        fixture.agent().close();
        assertThat(jmx.isRegistered(spool)).as("unregistered with Camel's MBeans").isFalse();

        start(); // no login: no console, and Camel keeps no MBeans
        await().atMost(Duration.ofSeconds(30)).until(() -> server().port() > 0);
        assertThat(jmx.isRegistered(spool)).isFalse();
    }

    @Test
    void itCanBeSwitchedOff() throws Exception {
        start("bridge.management.enabled", "false");
        assertThat(fixture.agent().context().getRegistry().lookupByName(ManagementServer.BEAN_NAME)).isNull();
        assertThat(fixture.agent().context().getManagementStrategy().getManagementAgent()).as("no JMX either").isNull();
        assertThat(fixture.agent().context().getStatus()).isEqualTo(ServiceStatus.Started);
    }

    @Test
    void badManagementSettingsStopStartUpNamingTheKey() {
        List<String[]> cases = List.of(
                new String[] {"bridge.management.port", "70000", "bridge.management.port"},
                new String[] {"bridge.management.host", " ", "bridge.management.host"},
                new String[] {"bridge.management.username", USER, "bridge.management.password"},
                new String[] {"bridge.management.password", PASSWORD, "bridge.management.username"},
                new String[] {"bridge.management.enabled", "yes", "bridge.management.enabled"});
        for (String[] c : cases) {
            assertThatThrownBy(() -> InProcessAgent.builder(fixture.state()).with(c[0], c[1]).start().close())
                    .as("%s=%s", c[0], c[1]).hasStackTraceContaining("Bad configuration: " + c[2] + ":");
        }
    }

    private static JsonNode findCheck(JsonNode report, String id) {
        for (JsonNode check : report.path("checks")) {
            if (check.path("id").asText().equals(id)) {
                return check;
            }
        }
        throw new AssertionError("no check " + id + " in " + report);
    }

    /** An address of this machine that is not loopback, e.g. its LAN or container address. */
    private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
        List<InetAddress> candidates = new ArrayList<>();
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback()) {
                Collections.list(nic.getInetAddresses()).stream()
                        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                        .forEach(candidates::add);
            }
        }
        return candidates.stream().findFirst();
    }
}
