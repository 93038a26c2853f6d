package io.github.scheduledeventsbridge.http;

import javax.net.ssl.SSLContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One request of the agent's own small clients (the managed identity's token, the approval queue) on the JDK's
 * HttpClient, with the limits the webhook client has: the whole exchange, connection to last byte, ends at a
 * deadline; at most {@code maxBytes} of the answer are kept (the rest is not read: the stream is cancelled); only
 * the URL's own host is reached (no proxy, no redirect followed).
 */
public final class BoundedExchange {

    /** A status, its headers and at most the bytes asked for; {@code truncated} when the answer had more. */
    public record Answer(int status, HttpHeaders headers, byte[] body, boolean truncated) {
        public String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final HttpClient client;

    public BoundedExchange(HttpClient client) {
        this.client = client;
    }

    /** A client that reaches only the hosts it is given: no proxy, no redirect, HTTP/1.1. {@code tls} may be null. */
    public static HttpClient client(SSLContext tls, Duration connectTimeout) {
        HttpClient.Builder builder = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY)
                .followRedirects(HttpClient.Redirect.NEVER).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout);
        if (tls != null) {
            builder.sslContext(tls);
        }
        return builder.build();
    }

    /** Sends {@code request}; an HttpTimeoutException when {@code deadline} passes before the answer is read. */
    public Answer send(HttpRequest request, int maxBytes, Duration deadline) throws IOException {
        CompletableFuture<HttpResponse<Bounded>> future = client.sendAsync(request, info -> new Limit(maxBytes));
        try {
            HttpResponse<Bounded> response = future.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
            Bounded body = response.body();
            return new Answer(response.statusCode(), response.headers(), body.bytes(), body.truncated());
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new HttpTimeoutException("no complete answer within " + deadline.toMillis() + " ms");
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause == null ? "failed" : cause.getClass().getSimpleName() + ": " + cause.getMessage(), cause);
        }
    }

    private record Bounded(byte[] bytes, boolean truncated) {
    }

    /** Keeps up to {@code max} bytes; past them, cancels the stream (the connection is dropped, not drained). */
    private static final class Limit implements HttpResponse.BodySubscriber<Bounded> {
        private final int max;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final CompletableFuture<Bounded> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        Limit(int max) {
            this.max = max;
        }

        @Override
        public CompletionStage<Bounded> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                int room = max - kept.size();
                int take = Math.min(room, buffer.remaining());
                byte[] part = new byte[take];
                buffer.get(part);
                kept.write(part, 0, take);
                if (buffer.hasRemaining()) {
                    subscription.cancel();
                    result.complete(new Bounded(kept.toByteArray(), true));
                    return;
                }
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable failure) {
            result.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            result.complete(new Bounded(kept.toByteArray(), false));
        }
    }
}
