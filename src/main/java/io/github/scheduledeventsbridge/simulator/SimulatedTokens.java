package io.github.scheduledeventsbridge.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * IMDS's managed identity endpoint, as far as a local peer can use it: an unsigned JWT (alg none) with the claims
 * Azurite checks in its {@code --oauth basic} mode (nbf, exp, iat, an iss of https://sts.windows.net/, aud the
 * resource asked for). Nothing but such an emulator accepts it. A test may make it answer an error instead.
 */
final class SimulatedTokens {

    static final Duration LIFETIME = Duration.ofHours(1);
    private static final ObjectMapper JSON = io.github.scheduledeventsbridge.json.Json.MAPPER;
    private static final Base64.Encoder URL64 = Base64.getUrlEncoder().withoutPadding();

    private final Clock clock;
    private final String tenant;
    private final String systemAssigned;
    private final AtomicInteger failWith = new AtomicInteger();
    final AtomicLong served = new AtomicLong();

    SimulatedTokens(Clock clock, String vmName) {
        this.clock = clock;
        this.tenant = UUID.nameUUIDFromBytes("imds-simulator/tenant".getBytes(StandardCharsets.UTF_8)).toString();
        this.systemAssigned = UUID.nameUUIDFromBytes(("imds-simulator/identity/" + vmName).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** 0: tokens are served again; else every request is answered with this status, as IMDS words it. */
    void failWith(int status) {
        failWith.set(status);
    }

    ImdsHandler.Answer answer(String resource, String clientId) {
        int failure = failWith.get();
        if (failure != 0) {
            return new ImdsHandler.Answer(failure, JSON.createObjectNode().put("error", failure == 400 ? "invalid_request" : "unavailable")
                    .put("error_description", failure == 400 ? "Identity not found" : "The identity is not available now").toString());
        }
        if (resource == null || resource.isBlank()) {
            return new ImdsHandler.Answer(400, JSON.createObjectNode().put("error", "invalid_request")
                    .put("error_description", "Required audience parameter not specified").toString());
        }
        String identity = clientId == null || clientId.isBlank() ? systemAssigned : clientId;
        long now = clock.instant().getEpochSecond();
        long expires = now + LIFETIME.toSeconds();
        ObjectNode claims = JSON.createObjectNode().put("aud", resource).put("iss", "https://sts.windows.net/" + tenant + "/")
                .put("iat", now).put("nbf", now).put("exp", expires).put("appid", identity).put("oid", identity)
                .put("sub", identity).put("tid", tenant);
        String token = URL64.encodeToString("{\"typ\":\"JWT\",\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + URL64.encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8)) + ".";
        served.incrementAndGet();
        return new ImdsHandler.Answer(200, JSON.createObjectNode().put("access_token", token).put("client_id", identity)
                .put("expires_in", String.valueOf(LIFETIME.toSeconds())).put("expires_on", String.valueOf(expires))
                .put("ext_expires_in", String.valueOf(LIFETIME.toSeconds())).put("not_before", String.valueOf(now))
                .put("resource", resource).put("token_type", "Bearer").toString());
    }
}
