package io.github.scheduledeventsbridge.packaging;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An IMDS look-alike that runs inside the test's container, on the package's own Java runtime (JDK classes only):
 * it answers each Scheduled Events GET with the file the test last wrote on the container's disk, so the test
 * scripts IMDS by writing that file, and appends each approval POST to another. Loopback only.
 * <p>{@code java -cp DIR io.github.scheduledeventsbridge.packaging.FileImds PORT DOCUMENT_FILE APPROVALS_FILE}
 */
public final class FileImds {

    static final String VM_NAME = "seb-vm";

    private FileImds() {
    }

    public static void main(String[] args) throws IOException {
        Path document = Path.of(args[1]);
        Path approvals = Path.of(args[2]);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 0);
        server.createContext("/metadata/scheduledevents", exchange -> {
            try (exchange) {
                if ("POST".equals(exchange.getRequestMethod())) {
                    Files.write(approvals, exchange.getRequestBody().readAllBytes(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    Files.writeString(approvals, "\n", StandardOpenOption.APPEND);
                    answer(exchange, "");
                } else {
                    answer(exchange, Files.readString(document));
                }
            }
        });
        server.createContext("/metadata/instance/compute", exchange -> {
            try (exchange) {
                answer(exchange, "{\"name\":\"" + VM_NAME + "\",\"vmId\":\"0b5ad5c6-8d0d-4d6b-a4a6-6a0e2b1d2c3e\","
                        + "\"resourceId\":\"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
                        + VM_NAME + "\",\"location\":\"westeurope\"}");
            }
        });
        server.start();
    }

    private static void answer(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(200, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
