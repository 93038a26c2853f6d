package io.github.scheduledeventsbridge.action;

import io.github.scheduledeventsbridge.http.HttpPort;
import io.github.scheduledeventsbridge.http.PortLimits;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;

/**
 * The drain signal's listener, on the agent's one HTTP stack ({@link HttpPort}) and its connection policy: a probe
 * that sends its request is read before more connections are accepted and is never closed to make room; idle or
 * slow clients are closed at {@code requestTimeout} and, beyond {@code maxConnections}, oldest first. No body is
 * read; every answer is JSON and closes the connection.
 */
final class DrainPort implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DrainPort.class);

    private final HttpPort port;

    DrainPort(String host, int port, int maxConnections, Duration requestTimeout, Function<DrainHttp.Request, DrainHttp.Answer> handler)
            throws IOException {
        this.port = new HttpPort("drain", host, port, PortLimits.of(maxConnections, 0, requestTimeout), 2, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                DrainHttp.Answer answer = answer(handler, new DrainHttp.Request(request.getMethod(),
                        request.getHttpURI().getPath(), request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING)));
                if (answer.allow() != null) {
                    response.getHeaders().put(HttpHeader.ALLOW, answer.allow());
                }
                HttpPort.json(response, callback, answer.status(), new String(answer.json(), StandardCharsets.UTF_8), true);
                return true;
            }
        });
        try {
            this.port.start();
        } catch (RuntimeException e) {
            throw new IOException(e.getCause() == null ? e.getMessage() : e.getCause().getMessage(), e);
        }
    }

    int port() {
        return port.port();
    }

    private static DrainHttp.Answer answer(Function<DrainHttp.Request, DrainHttp.Answer> handler, DrainHttp.Request request) {
        try {
            return handler.apply(request);
        } catch (RuntimeException e) {
            // The listener outlives a failed answer: the next probe may be answered.
            LOG.warn("The drain signal could not answer: {}", e.toString());
            return DrainHttp.error(500, "no answer");
        }
    }

    @Override
    public void close() {
        port.stop();
    }
}
