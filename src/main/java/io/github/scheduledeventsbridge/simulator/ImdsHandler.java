package io.github.scheduledeventsbridge.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** Serves the IMDS endpoints, with IMDS's checks in IMDS's order: Metadata header, path, method, api-version. */
final class ImdsHandler implements HttpHandler {

    static final String SCHEDULED_EVENTS_PATH = "/metadata/scheduledevents";
    static final String INSTANCE_PATH = "/metadata/instance";
    static final String COMPUTE_PATH = "/metadata/instance/compute";
    static final int MAX_BODY_BYTES = 64 * 1024;

    private static final String JSON_CONTENT_TYPE = "application/json; charset=utf-8";
    private static final Set<String> SCHEDULED_EVENTS_VERSIONS = Set.of(
            "2017-03-01", "2017-08-01", "2017-11-01", "2019-01-01", "2019-04-01", "2019-08-01", "2020-07-01");
    private static final Pattern INSTANCE_VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SimulatedEvents events;
    private final Map<String, Endpoint> endpoints;
    private final AtomicLong notModifiedServed = new AtomicLong();

    ImdsHandler(SimulatedEvents events, String vmName) {
        this.events = events;
        ObjectNode compute = compute(vmName);
        String computeJson = compute.toString();
        String instanceJson = JSON.createObjectNode().set("compute", compute).toString();
        Predicate<String> anyDate = version -> INSTANCE_VERSION.matcher(version).matches();
        this.endpoints = Map.of(
                SCHEDULED_EVENTS_PATH, new Endpoint(List.of("GET", "POST"), SCHEDULED_EVENTS_VERSIONS::contains,
                        this::scheduledEvents),
                COMPUTE_PATH, new Endpoint(List.of("GET"), anyDate, exchange -> new Response(200, computeJson)),
                INSTANCE_PATH, new Endpoint(List.of("GET"), anyDate, exchange -> new Response(200, instanceJson)));
    }

    /** The compute section of instance metadata; vmId is derived from the name so it is stable across runs. */
    private static ObjectNode compute(String vmName) {
        ObjectNode compute = JSON.createObjectNode();
        compute.put("name", vmName);
        compute.put("vmId", UUID.nameUUIDFromBytes(("imds-simulator/" + vmName).getBytes(StandardCharsets.UTF_8))
                .toString());
        compute.put("resourceId", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/sim-rg"
                + "/providers/Microsoft.Compute/virtualMachines/" + vmName);
        compute.put("location", "westeurope");
        compute.put("vmSize", "Standard_D2s_v3");
        compute.put("osType", "Linux");
        compute.put("vmScaleSetName", "");
        return compute;
    }

    long notModifiedServed() {
        return notModifiedServed.get();
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            send(exchange, route(exchange));
        } finally {
            exchange.close();
        }
    }

    private Response route(HttpExchange exchange) throws IOException {
        if (!"true".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Metadata"))) {
            return Response.error(400, "Bad request. Required metadata header not specified");
        }
        Endpoint endpoint = endpoints.get(exchange.getRequestURI().getPath());
        if (endpoint == null) {
            return Response.error(404, "Not found");
        }
        if (!endpoint.methods().contains(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().set("Allow", String.join(", ", endpoint.methods()));
            return Response.error(405, "Method not allowed");
        }
        Optional<String> version = queryParameter(exchange.getRequestURI(), "api-version");
        if (version.isEmpty()) {
            return Response.error(400, "Bad request. api-version was not specified in the request. "
                    + "For more information refer to aka.ms/azureimds");
        }
        if (!endpoint.versions().test(version.get())) {
            return Response.error(400, "Bad request. api-version is invalid. "
                    + "For more information refer to aka.ms/azureimds");
        }
        return endpoint.action().respond(exchange);
    }

    private Response scheduledEvents(HttpExchange exchange) throws IOException {
        if ("GET".equals(exchange.getRequestMethod())) {
            String document = events.document();
            String etag = etag(document);
            exchange.getResponseHeaders().set("ETag", etag);
            if (notModified(exchange.getRequestHeaders().get("If-None-Match"), etag)) {
                notModifiedServed.incrementAndGet();
                return new Response(304, null);
            }
            return new Response(200, document);
        }
        // Read one byte past the limit to tell "exactly at the limit" from "over it", whatever Content-Length says.
        byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY_BYTES + 1);
        if (body.length > MAX_BODY_BYTES) {
            return Response.error(413, "Request entity too large");
        }
        Optional<List<String>> eventIds = startRequests(body);
        if (eventIds.isEmpty()) {
            return Response.error(400, "Bad request. Expected {\"StartRequests\":[{\"EventId\":\"...\"}]}");
        }
        if (!events.approve(eventIds.get())) {
            return Response.error(400, "Bad request. EventId not found in current scheduled events");
        }
        return new Response(200, null);
    }

    /** The EventIds of a StartRequests body, or empty if the body is not a non-empty list of them. */
    private static Optional<List<String>> startRequests(byte[] body) {
        JsonNode requests;
        try {
            requests = JSON.readTree(body).path("StartRequests");
        } catch (IOException malformed) {
            return Optional.empty();
        }
        if (!requests.isArray() || requests.isEmpty()) {
            return Optional.empty();
        }
        List<String> eventIds = new ArrayList<>();
        for (JsonNode request : requests) {
            JsonNode eventId = request.path("EventId");
            if (!eventId.isTextual()) {
                return Optional.empty();
            }
            eventIds.add(eventId.asText());
        }
        return Optional.of(eventIds);
    }

    /** A strong validator of exactly these bytes, as IMDS may send one (Microsoft's Node sample relies on it). */
    static String etag(String document) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(document.getBytes(StandardCharsets.UTF_8));
            return "\"" + HexFormat.of().formatHex(digest, 0, 8) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** If-None-Match as RFC 9110 reads it: "*", or a list of entity-tags compared weakly (W/ is ignored). */
    static boolean notModified(List<String> ifNoneMatch, String etag) {
        if (ifNoneMatch == null) {
            return false;
        }
        String opaque = etag.startsWith("W/") ? etag.substring(2) : etag;
        for (String header : ifNoneMatch) {
            for (String tag : header.split(",")) {
                String candidate = tag.trim();
                if (candidate.equals("*") || (candidate.startsWith("W/") ? candidate.substring(2) : candidate).equals(opaque)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Optional<String> queryParameter(URI uri, String name) {
        String query = uri.getRawQuery();
        if (query == null) {
            return Optional.empty();
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String key = equals < 0 ? pair : pair.substring(0, equals);
            if (name.equals(decode(key))) {
                return Optional.of(equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
        }
        return Optional.empty();
    }

    private static String decode(String component) {
        return URLDecoder.decode(component, StandardCharsets.UTF_8);
    }

    private static void send(HttpExchange exchange, Response response) throws IOException {
        // HEAD is never supported, but even its error response must not carry a body.
        if (response.json() == null || "HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(response.status(), -1);
            return;
        }
        byte[] bytes = response.json().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", JSON_CONTENT_TYPE);
        exchange.sendResponseHeaders(response.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @FunctionalInterface
    private interface Action {
        Response respond(HttpExchange exchange) throws IOException;
    }

    private record Endpoint(List<String> methods, Predicate<String> versions, Action action) {
    }

    /** A response; a null json means an empty body. */
    private record Response(int status, String json) {

        static Response error(int status, String message) {
            return new Response(status, JSON.createObjectNode().put("error", message).toString());
        }
    }
}
