package io.github.scheduledeventsbridge.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.testing.FreePorts;
import org.junit.jupiter.api.AfterEach;
import io.github.scheduledeventsbridge.testing.ManualClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The token client against the built-in simulator's identity endpoint, and against a JDK server for its faults. */
class ManagedIdentityTokensTest {

    private static final String STORAGE = "https://storage.azure.com/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private ImdsSimulator simulator;
    private HttpServer server;
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        if (simulator != null) {
            simulator.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void theSimulatorsTokenCarriesTheClaimsAzuriteChecksAndIsKeptUntilShortlyBeforeItExpires() throws Exception {
        simulator = new ImdsSimulator(ImdsSimulator.Options.defaults()).start();
        ManualClock clock = new ManualClock(Instant.now());
        ManagedIdentityTokens tokens = new ManagedIdentityTokens(simulator.identityTokenUri(), Duration.ofSeconds(10), clock);

        AccessToken token = tokens.token(STORAGE, null);
        String[] parts = token.value().split("\\.", -1);
        assertThat(parts).hasSize(3);
        JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
        long now = Instant.now().getEpochSecond();
        assertThat(claims.path("aud").asText()).isEqualTo(STORAGE);
        assertThat(claims.path("iss").asText()).startsWith("https://sts.windows.net/");
        assertThat(claims.path("nbf").asLong()).isBetween(now - 60, now + 5);
        assertThat(claims.path("iat").asLong()).isBetween(now - 60, now + 5);
        assertThat(claims.path("exp").asLong()).isGreaterThan(now + 600);
        assertThat(token.expiresOn().getEpochSecond()).isEqualTo(claims.path("exp").asLong());
        assertThat(token.toString()).doesNotContain(token.value());

        assertThat(tokens.token(STORAGE, null)).isSameAs(token);
        assertThat(simulator.tokensServed()).isEqualTo(1);
        clock.set(token.expiresOn().minus(ManagedIdentityTokens.REFRESH_BEFORE).minusSeconds(1));
        assertThat(tokens.token(STORAGE, null)).isSameAs(token);
        clock.set(token.expiresOn().minus(ManagedIdentityTokens.REFRESH_BEFORE));
        tokens.token(STORAGE, null);
        assertThat(simulator.tokensServed()).isEqualTo(2);

        tokens.token("https://eventgrid.azure.net", null); // another resource: another token
        tokens.token(STORAGE, "11111111-2222-3333-4444-555555555555"); // another identity: another token
        assertThat(simulator.tokensServed()).isEqualTo(4);
    }

    @Test
    void theRequestIsImdsOwnShape() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        server = server(exchange -> {
            seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " Metadata=" + exchange.getRequestHeaders().getFirst("Metadata"));
            answer(exchange, 200, "{\"access_token\":\"abc\",\"expires_on\":\"" + (Instant.now().getEpochSecond() + 3600) + "\"}");
        });
        ManagedIdentityTokens tokens = new ManagedIdentityTokens(url(server), Duration.ofSeconds(10), Clock.systemUTC());
        assertThat(tokens.token(STORAGE, "abc-1").value()).isEqualTo("abc");
        assertThat(seen).containsExactly("GET /metadata/identity/oauth2/token?api-version=2018-02-01"
                + "&resource=https%3A%2F%2Fstorage.azure.com%2F&client_id=abc-1 Metadata=true");
    }

    @Test
    void anIdentityTheVmLacksIsAClearLineAndNotTransient() throws Exception {
        simulator = new ImdsSimulator(ImdsSimulator.Options.defaults()).start();
        simulator.failTokens(400);
        ManagedIdentityTokens tokens = new ManagedIdentityTokens(simulator.identityTokenUri(), Duration.ofSeconds(10), Clock.systemUTC());
        assertThatThrownBy(() -> tokens.token(STORAGE, "no-such-id"))
                .isInstanceOfSatisfying(TokenUnavailableException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.transientFailure()).isFalse();
                    assertThat(e.getMessage()).contains("https://storage.azure.com/", "no-such-id", "HTTP 400",
                            "Identity not found");
                });
        simulator.failTokens(500);
        assertThatThrownBy(() -> tokens.token(STORAGE, null)).isInstanceOfSatisfying(TokenUnavailableException.class,
                e -> assertThat(e.transientFailure()).isTrue());
        simulator.failTokens(0);
        assertThat(tokens.token(STORAGE, null).value()).isNotEmpty();
    }

    @Test
    void aHungEndpointEndsAtTheDeadline() throws Exception {
        server = server(exchange -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        ManagedIdentityTokens tokens = new ManagedIdentityTokens(url(server), Duration.ofMillis(500), Clock.systemUTC());
        assertThatThrownBy(() -> tokens.token(STORAGE, null)).isInstanceOf(TokenUnavailableException.class)
                .hasMessageContaining("no answer within 500 ms");
    }

    @Test
    void nothingListeningAndNotATokenAreClearLines() throws Exception {
        URI nowhere = URI.create("http://127.0.0.1:" + FreePorts.unused() + "/metadata/identity/oauth2/token");
        assertThatThrownBy(() -> new ManagedIdentityTokens(nowhere, Duration.ofSeconds(5), Clock.systemUTC()).token(STORAGE, null))
                .isInstanceOf(TokenUnavailableException.class).hasMessageContaining("ConnectException");
        server = server(exchange -> answer(exchange, 200, "x".repeat(200_000)));
        assertThatThrownBy(() -> new ManagedIdentityTokens(url(server), Duration.ofSeconds(5), Clock.systemUTC()).token(STORAGE, null))
                .isInstanceOf(TokenUnavailableException.class).hasMessageContaining("not a token");
    }

    private interface Handler {
        void handle(com.sun.net.httpserver.HttpExchange exchange) throws IOException;
    }

    private static HttpServer server(Handler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            try {
                handler.handle(exchange);
            } finally {
                exchange.close();
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        return server;
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static URI url(HttpServer server) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metadata/identity/oauth2/token");
    }
}
