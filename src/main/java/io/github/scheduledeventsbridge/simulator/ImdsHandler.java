package io.github.scheduledeventsbridge.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.http.HttpPort;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves the IMDS endpoints, with IMDS's checks in IMDS's order: Metadata header, path, method, api-version. A body
 * is read whole first (the port refuses one over {@value #MAX_BODY_BYTES} bytes with 413).
 */
final class ImdsHandler extends Handler.Abstract {

    static final String SCHEDULED_EVENTS_PATH = "/metadata/scheduledevents";
    static final String COMPUTE_PATH = "/metadata/instance/compute";
    static final String IDENTITY_PATH = "/metadata/identity/oauth2/token";
    static final int MAX_BODY_BYTES = 64 * 1024;

    private static final Set<String> SCHEDULED_EVENTS_VERSIONS = Set.of(
            "2017-03-01", "2017-08-01", "2017-11-01", "2019-01-01", "2019-04-01", "2019-08-01", "2020-07-01");
    private static final String BAD_VERSION = "Bad request. api-version %s. For more information refer to aka.ms/azureimds";
    private static final ObjectMapper JSON = io.github.scheduledeventsbridge.json.Json.MAPPER;

    final SimulatedEvents events;
    final AtomicLong notModifiedServed = new AtomicLong();
    final SimulatedTokens tokens;
    /** Instance metadata by path; vmId is derived from the name so it is stable across runs. */
    private final Map<String, String> instance;

    ImdsHandler(SimulatedEvents events, String vmName, SimulatedTokens tokens) {
        this.events = events;
        this.tokens = tokens;
        ObjectNode compute = JSON.createObjectNode().put("name", vmName)
                .put("vmId", UUID.nameUUIDFromBytes(("imds-simulator/" + vmName).getBytes(StandardCharsets.UTF_8)).toString())
                .put("resourceId", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/sim-rg"
                        + "/providers/Microsoft.Compute/virtualMachines/" + vmName)
                .put("location", "westeurope").put("vmSize", "Standard_D2s_v3").put("osType", "Linux").put("vmScaleSetName", "");
        this.instance = Map.of(COMPUTE_PATH, compute.toString(),
                "/metadata/instance", JSON.createObjectNode().set("compute", compute).toString());
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Content.Source.asByteArrayAsync(request, -1).whenComplete((body, failure) -> {
            if (failure != null) { // a body past the limit: the port answers 413
                callback.failed(failure);
                return;
            }
            Answer answer = answer(request, response, body);
            HttpPort.send(response, callback, answer.status(), "application/json; charset=utf-8", answer.json());
        });
        return true;
    }

    private Answer answer(Request request, Response response, byte[] body) {
        if (!"true".equalsIgnoreCase(request.getHeaders().get("Metadata"))) {
            return error(400, "Bad request. Required metadata header not specified");
        }
        String path = request.getHttpURI().getPath();
        boolean scheduledEvents = SCHEDULED_EVENTS_PATH.equals(path);
        boolean identity = IDENTITY_PATH.equals(path);
        if (!scheduledEvents && !identity && !instance.containsKey(path)) {
            return error(404, "Not found");
        }
        List<String> methods = scheduledEvents ? List.of("GET", "POST") : List.of("GET");
        if (!methods.contains(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, String.join(", ", methods));
            return error(405, "Method not allowed");
        }
        String version;
        Fields query;
        try {
            query = Request.extractQueryParameters(request);
            version = query.getValue("api-version");
        } catch (BadMessageException malformed) { // bad %-encoding: answered as an invalid version
            query = new Fields();
            version = "";
        }
        if (version == null) {
            return error(400, BAD_VERSION.formatted("was not specified in the request"));
        }
        if (scheduledEvents ? !SCHEDULED_EVENTS_VERSIONS.contains(version) : !version.matches("\\d{4}-\\d{2}-\\d{2}")) {
            return error(400, BAD_VERSION.formatted("is invalid"));
        }
        if (identity) {
            return tokens.answer(query.getValue("resource"), query.getValue("client_id"));
        }
        if (!scheduledEvents) {
            return new Answer(200, instance.get(path));
        }
        if ("POST".equals(request.getMethod())) {
            List<String> eventIds = startRequests(body);
            if (eventIds.isEmpty()) {
                return error(400, "Bad request. Expected {\"StartRequests\":[{\"EventId\":\"...\"}]}");
            }
            return events.approve(eventIds) ? new Answer(200, null)
                    : error(400, "Bad request. EventId not found in current scheduled events");
        }
        String document = events.document();
        // A strong validator of exactly these bytes (a name-based UUID is their MD5), as IMDS may send one
        // (Microsoft's Node sample relies on it); If-None-Match is "*" or entity-tags compared weakly (RFC 9110).
        String etag = "\"%016x\"".formatted(UUID.nameUUIDFromBytes(document.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits());
        response.getHeaders().put(HttpHeader.ETAG, etag);
        if (request.getHeaders().getCSV(HttpHeader.IF_NONE_MATCH, true).stream()
                .anyMatch(tag -> tag.equals("*") || tag.replaceFirst("^W/", "").equals(etag))) {
            notModifiedServed.incrementAndGet();
            return new Answer(304, null);
        }
        return new Answer(200, document);
    }

    /** The EventIds of a StartRequests body, or none if the body is not a non-empty list of them. */
    private static List<String> startRequests(byte[] body) {
        JsonNode requests;
        try {
            requests = JSON.readTree(body).path("StartRequests");
        } catch (IOException malformed) {
            return List.of();
        }
        List<String> eventIds = new ArrayList<>();
        requests.forEach(request -> eventIds.add(request.path("EventId").isTextual() ? request.get("EventId").asText() : null));
        return requests.isArray() && !eventIds.contains(null) ? eventIds : List.of();
    }

    static Answer error(int status, String message) {
        return new Answer(status, HttpPort.errorJson(message));
    }

    /** An answer; a null json means an empty body. */
    record Answer(int status, String json) {
    }
}
