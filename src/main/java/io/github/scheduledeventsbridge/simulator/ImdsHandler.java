package io.github.scheduledeventsbridge.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.http.HttpPort;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
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

/**
 * Serves the IMDS endpoints, with IMDS's checks in IMDS's order: Metadata header, path, method, api-version. A body
 * is read whole first (the port refuses one over {@value #MAX_BODY_BYTES} bytes with 413).
 */
final class ImdsHandler extends Handler.Abstract {

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
                COMPUTE_PATH, new Endpoint(List.of("GET"), anyDate, (request, response, body) -> new Answer(200, computeJson)),
                INSTANCE_PATH, new Endpoint(List.of("GET"), anyDate, (request, response, body) -> new Answer(200, instanceJson)));
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
    public boolean handle(Request request, Response response, Callback callback) {
        Content.Source.asByteArrayAsync(request, -1).whenComplete((body, failure) -> {
            if (failure instanceof HttpException tooLarge && tooLarge.getCode() == 413) {
                send(request, response, callback, Answer.error(413, "Request entity too large"));
            } else if (failure != null) {
                callback.failed(failure);
            } else {
                send(request, response, callback, route(request, response, body));
            }
        });
        return true;
    }

    private Answer route(Request request, Response response, byte[] body) {
        if (!"true".equalsIgnoreCase(request.getHeaders().get("Metadata"))) {
            return Answer.error(400, "Bad request. Required metadata header not specified");
        }
        Endpoint endpoint = endpoints.get(request.getHttpURI().getPath());
        if (endpoint == null) {
            return Answer.error(404, "Not found");
        }
        if (!endpoint.methods().contains(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, String.join(", ", endpoint.methods()));
            return Answer.error(405, "Method not allowed");
        }
        String version;
        try {
            version = Request.extractQueryParameters(request).getValue("api-version");
        } catch (BadMessageException malformed) { // bad %-encoding: answered as an invalid version
            version = "";
        }
        if (version == null) {
            return Answer.error(400, "Bad request. api-version was not specified in the request. "
                    + "For more information refer to aka.ms/azureimds");
        }
        if (!endpoint.versions().test(version)) {
            return Answer.error(400, "Bad request. api-version is invalid. "
                    + "For more information refer to aka.ms/azureimds");
        }
        return endpoint.action().respond(request, response, body);
    }

    private Answer scheduledEvents(Request request, Response response, byte[] body) {
        if ("GET".equals(request.getMethod())) {
            String document = events.document();
            String etag = etag(document);
            response.getHeaders().put(HttpHeader.ETAG, etag);
            if (notModified(request.getHeaders().getValuesList(HttpHeader.IF_NONE_MATCH), etag)) {
                notModifiedServed.incrementAndGet();
                return new Answer(304, null);
            }
            return new Answer(200, document);
        }
        Optional<List<String>> eventIds = startRequests(body);
        if (eventIds.isEmpty()) {
            return Answer.error(400, "Bad request. Expected {\"StartRequests\":[{\"EventId\":\"...\"}]}");
        }
        if (!events.approve(eventIds.get())) {
            return Answer.error(400, "Bad request. EventId not found in current scheduled events");
        }
        return new Answer(200, null);
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

    private static void send(Request request, Response response, Callback callback, Answer answer) {
        // HEAD is never supported, but even its error response must not carry a body.
        HttpPort.send(response, callback, answer.status(), JSON_CONTENT_TYPE,
                "HEAD".equals(request.getMethod()) ? null : answer.json());
    }

    @FunctionalInterface
    private interface Action {
        Answer respond(Request request, Response response, byte[] body);
    }

    private record Endpoint(List<String> methods, Predicate<String> versions, Action action) {
    }

    /** An answer; a null json means an empty body. */
    private record Answer(int status, String json) {

        static Answer error(int status, String message) {
            return new Answer(status, HttpPort.errorJson(message));
        }
    }
}
