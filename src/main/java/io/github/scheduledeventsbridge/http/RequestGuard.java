package io.github.scheduledeventsbridge.http;

import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The requests' side of the {@link ConnectionPolicy}: a request is answering once it arrived whole; its body is
 * bounded (413, never buffered here); once answered, up to {@value #DISCARD_LIMIT} bytes of a body the handler did
 * not read are dropped, so that a client still sending reads the answer instead of a reset.
 */
final class RequestGuard extends Handler.Wrapper {

    static final long DISCARD_LIMIT = 1024 * 1024;

    private final ConnectionPolicy policy;
    private final long maxBody;

    RequestGuard(ConnectionPolicy policy, Handler handler) {
        super(handler);
        this.policy = policy;
        this.maxBody = policy.limits.maxBodyBytes();
    }

    static String tooLarge(long maxBody) {
        return maxBody == 0 ? "no request body accepted" : "body over " + maxBody / 1024 + " KiB";
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        ConnectionPolicy.Tracked connection = policy.tracked(request);
        Callback answered = Callback.from(callback.getInvocationType(), () -> {
            policy.answered(connection); // a client that goes on sending meets the request deadline again
            discard(request, DISCARD_LIMIT, callback::succeeded);
        }, failure -> {
            policy.answered(connection);
            callback.failed(failure);
        });
        long announced = request.getLength();
        if (announced > maxBody) {
            policy.observer.refused(Request.getRemoteAddr(request), HttpStatus.PAYLOAD_TOO_LARGE_413, tooLarge(maxBody));
            HttpPort.json(response, answered, HttpStatus.PAYLOAD_TOO_LARGE_413, HttpPort.errorJson(tooLarge(maxBody)), true);
            return true;
        }
        if (announced <= 0 && !request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING)) {
            policy.answering(connection);
            return super.handle(request, response, answered);
        }
        return super.handle(new Bounded(request, connection), response, answered);
    }

    /** Reads and drops up to {@code left} more bytes of the request's body, then runs {@code done}. */
    private static void discard(Request request, long left, Runnable done) {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                long rest = left;
                request.demand(() -> discard(request, rest, done));
                return;
            }
            left -= chunk.remaining();
            chunk.release();
            if (chunk.isLast() || Content.Chunk.isFailure(chunk) || left < 0) {
                done.run();
                return;
            }
        }
    }

    /** The body as the handler reads it: counted, a failure (413) past the limit; its last byte makes it whole. */
    private final class Bounded extends Request.Wrapper {
        private final ConnectionPolicy.Tracked connection;
        private long read;
        private Content.Chunk refused;

        Bounded(Request request, ConnectionPolicy.Tracked connection) {
            super(request);
            this.connection = connection;
        }

        @Override
        public Content.Chunk read() {
            if (refused != null) {
                return refused;
            }
            Content.Chunk chunk = super.read();
            if (chunk == null || Content.Chunk.isFailure(chunk)) {
                return chunk;
            }
            read += chunk.remaining();
            if (read > maxBody) {
                chunk.release();
                refused = Content.Chunk.from(new HttpException.RuntimeException(HttpStatus.PAYLOAD_TOO_LARGE_413,
                        tooLarge(maxBody)), true);
                return refused;
            }
            if (chunk.isLast()) {
                policy.answering(connection);
            }
            return chunk;
        }
    }
}
