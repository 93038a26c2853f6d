package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.WebhookReceiver.Request;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10: real receiver URL shapes (Azure Functions, Logic Apps, Teams Workflows), a query that looks like
 * endpoint options, and Basic credentials, over real sockets; no secret in logs, route models or endpoint URIs.
 */
class WebhookAddressingTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    @Test
    void azureFunctionsLogicAppsTeamsAndBasicAuthUrlsGetASignedPostWithTheirExactQuery() throws Exception {
        String functionQuery = "code=abc%2Bdef%3D%3D";
        String logicAppQuery = "api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=AbC-123";
        String teamsQuery = "api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=T3amsSig%2Fx";
        try (WebhookReceiver receiver = WebhookReceiver.start("s"); WebhookReceiver proxy = WebhookReceiver.start("s");
             LogCapture log = LogCapture.install()) {
            String proxyQuery = "proxyHost=127.0.0.1&proxyPort=" + java.net.URI.create(proxy.url()).getPort();
            String basic = receiver.url("/basic").replace("http://", "http://alice:pa%3Ass%40word@");
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo(receiver.url("/api/fn?" + functionQuery),
                    receiver.url("/workflows/x/triggers/manual/paths/invoke?" + logicAppQuery),
                    "teams:" + receiver.url("/workflows/t/triggers/manual/paths/invoke?" + teamsQuery),
                    receiver.url("/hook?" + proxyQuery), basic).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> receiver.delivered().size() == 5);
                // What Camel can show (route models, endpoint URIs) holds no token and no password.
                String routes = ((org.apache.camel.model.ModelCamelContext) agent.context()).getRouteDefinitions().toString();
                assertThat(routes).contains("sink-webhook-", "direct:webhook-attempt", "http://webhook-target");
                String endpoints = agent.context().getEndpoints().toString();
                for (String secret : List.of("abc%2Bdef", "abc+def", "AbC-123", "T3amsSig", "pa%3Ass", "alice", "proxyPort")) {
                    assertThat(routes).doesNotContain(secret);
                    assertThat(endpoints).doesNotContain(secret);
                }
            }
            Map<String, Request> byPath = new java.util.HashMap<>();
            receiver.delivered().forEach(r -> byPath.put(r.path(), r));
            assertThat(receiver.requests()).extracting(Request::method).containsOnly("POST");
            assertThat(receiver.requests()).allSatisfy(r -> {
                assertThat(r.signatureValid()).as("signed over the body sent").isTrue();
                assertThat(r.body()).isNotBlank();
            });
            assertThat(byPath.get("/api/fn").rawQuery()).isEqualTo(functionQuery);
            assertThat(byPath.get("/api/fn").eventId()).isEqualTo(A);
            assertThat(byPath.get("/workflows/x/triggers/manual/paths/invoke").rawQuery()).isEqualTo(logicAppQuery);
            Request teams = byPath.get("/workflows/t/triggers/manual/paths/invoke");
            assertThat(teams.rawQuery()).isEqualTo(teamsQuery);
            assertThat(teams.json().path("attachments").isArray()).as("Teams format").isTrue();
            assertThat(byPath.get("/hook").rawQuery()).as("an ordinary query, not endpoint options").isEqualTo(proxyQuery);
            assertThat(proxy.requests()).as("nothing went through the 'proxy'").isEmpty();
            Request authenticated = byPath.get("/basic");
            assertThat(authenticated.rawQuery()).isNull();
            assertThat(authenticated.authorization()).isEqualTo("Basic "
                    + Base64.getEncoder().encodeToString("alice:pa:ss@word".getBytes(StandardCharsets.UTF_8)));
            assertThat(byPath.get("/api/fn").authorization()).isNull();
            assertThat(log.text()).doesNotContain("pa%3Ass", "pa:ss@word", "abc%2Bdef", "AbC-123", "T3amsSig", "proxyPort");
        }
    }
}
