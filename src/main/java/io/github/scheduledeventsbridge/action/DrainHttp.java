package io.github.scheduledeventsbridge.action;

import java.nio.charset.StandardCharsets;

/** What the drain port hands the drain signal and what it answers (the HTTP itself is {@link DrainPort}'s). */
final class DrainHttp {

    /** A request's method and path (without the query), and whether it sends a body (a length-announced one never arrives: 413). */
    record Request(String method, String path, boolean hasBody) {
    }

    /** An answer: status, JSON body (not sent for HEAD), and an Allow header value or null. */
    record Answer(int status, byte[] json, String allow) {
    }

    private DrainHttp() {
    }

    static Answer error(int status, String message) {
        return new Answer(status, ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.US_ASCII), null);
    }
}
