package io.github.scheduledeventsbridge.action;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** The little HTTP/1.1 the drain port speaks: a request head read, an answer written, one per connection. */
final class DrainHttp {

    /** A request's method and path (without the query), and whether it announced a body. */
    record Request(String method, String path, boolean hasBody) {
    }

    /** An answer: status, JSON body (not sent for HEAD), and an Allow header value or null. */
    record Answer(int status, byte[] json, String allow) {
    }

    private DrainHttp() {
    }

    /** The request in the head's first {@code end} bytes, or null when it is not HTTP/1.x. */
    static Request parse(byte[] head, int end) {
        String text = new String(head, 0, end, StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\r\n");
        String[] requestLine = lines[0].split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            return null;
        }
        boolean hasBody = false;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            String name = colon < 0 ? lines[i] : lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : lines[i].substring(colon + 1).trim();
            hasBody |= name.equals("transfer-encoding") || (name.equals("content-length") && !value.equals("0"));
        }
        String target = requestLine[1];
        int query = target.indexOf('?');
        return new Request(requestLine[0], query < 0 ? target : target.substring(0, query), hasBody);
    }

    static Answer error(int status, String message) {
        return new Answer(status, ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.US_ASCII), null);
    }

    /** The answer's bytes: status line, headers ({@code Connection: close}) and, unless for HEAD, the body. */
    static byte[] response(Answer answer, boolean head) {
        String headers = "HTTP/1.1 " + answer.status() + " " + reason(answer.status()) + "\r\n"
                + "Content-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\n"
                + (answer.allow() == null ? "" : "Allow: " + answer.allow() + "\r\n")
                + "Content-Length: " + answer.json().length + "\r\n\r\n";
        byte[] start = headers.getBytes(StandardCharsets.US_ASCII);
        if (head) {
            return start;
        }
        byte[] all = java.util.Arrays.copyOf(start, start.length + answer.json().length);
        System.arraycopy(answer.json(), 0, all, start.length, answer.json().length);
        return all;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 413 -> "Content Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }
}
