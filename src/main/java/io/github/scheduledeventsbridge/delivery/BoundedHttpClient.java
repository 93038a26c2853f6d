package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.camel.component.http.HttpComponent;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.io.HttpClientConnectionManager;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.ssl.SSLContexts;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The webhook endpoint's HTTP client (camel-http's {@code httpClientConfigurer}): what a receiver answers is read
 * only so far. camel-http copies a whole answer into memory, any status, so a receiver answering hundreds of
 * megabytes (or a header line without end) would exhaust the heap; here:
 * <ul>
 *   <li>the body: at most {@value #MAX_ANSWER_BYTES} bytes are read (the status and those bytes are all the agent
 *       uses: a refusal's reason), then the connection is closed rather than drained;</li>
 *   <li>headers: a line of at most {@value #MAX_HEADER_LINE} bytes, at most {@value #MAX_HEADERS} of them (the
 *       client's default has no limit);</li>
 *   <li>time: the whole exchange, connection to last byte, ends at {@link AttemptDeadlines}' deadline.</li>
 * </ul>
 * Everything else is camel-http's component configuration: timeouts, pool sizes, its TLS settings.
 */
public final class BoundedHttpClient implements HttpClientConfigurer {

    public static final int MAX_ANSWER_BYTES = 4096;
    public static final int MAX_HEADER_LINE = 8192;
    public static final int MAX_HEADERS = 100;

    private final CamelContext context;
    private final AttemptDeadlines deadlines;

    public BoundedHttpClient(CamelContext context, AttemptDeadlines deadlines) {
        this.context = context;
        this.deadlines = deadlines;
    }

    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        builder.setConnectionManager(connectionManager());
        builder.addExecInterceptorFirst("bridge-bounded-attempt", this::execute);
    }

    /** As camel-http would make it (its socket timeout, pool sizes and TLS), with bounded header parsing. */
    private HttpClientConnectionManager connectionManager() {
        HttpComponent http = context.getComponent("http", HttpComponent.class);
        PoolingHttpClientConnectionManagerBuilder manager = PoolingHttpClientConnectionManagerBuilder.create()
                .setConnectionFactory(ManagedHttpClientConnectionFactory.builder()
                        .http1Config(Http1Config.custom().setMaxLineLength(MAX_HEADER_LINE).setMaxHeaderCount(MAX_HEADERS).build())
                        .build())
                .setDefaultSocketConfig(SocketConfig.custom().setSoTimeout(Timeout.ofMilliseconds(http.getSoTimeout())).build())
                .setConnectionTimeToLive(TimeValue.ofMilliseconds(http.getConnectionTimeToLive()));
        if (http.getMaxTotalConnections() > 0) {
            manager.setMaxConnTotal(http.getMaxTotalConnections());
        }
        if (http.getConnectionsPerRoute() > 0) {
            manager.setMaxConnPerRoute(http.getConnectionsPerRoute());
        }
        try {
            manager.setTlsSocketStrategy(new DefaultClientTlsStrategy(http.getSslContextParameters() != null
                    ? http.getSslContextParameters().createSSLContext(context) : SSLContexts.createDefault()));
        } catch (java.security.GeneralSecurityException | IOException e) {
            throw new IllegalStateException("camel.component.http.ssl-context-parameters cannot be used", e);
        }
        return manager.build();
    }

    /** First in the client's chain: the deadline starts before the connection, and the answer's body is bounded. */
    private ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        Cancellable cancellable = scope.originalRequest instanceof Cancellable c ? c : null;
        AttemptDeadlines.Attempt attempt = deadlines.begin(() -> {
            if (cancellable != null) {
                cancellable.cancel();
            }
        });
        ClassicHttpResponse response;
        try {
            response = chain.proceed(request, scope);
        } catch (IOException | HttpException | RuntimeException e) {
            attempt.close();
            if (attempt.expired()) {
                throw attempt.timedOut(e);
            }
            throw e;
        }
        if (response.getEntity() == null) {
            attempt.close();
        } else {
            response.setEntity(new BoundedEntity(response.getEntity(), attempt));
        }
        return response;
    }

    /**
     * At most {@value #MAX_ANSWER_BYTES} bytes of the answer; closed before its end, the connection is dropped (an
     * ordinary close would read the rest to reuse it). Closing it ends the attempt.
     */
    static final class BoundedEntity extends HttpEntityWrapper {
        private final AttemptDeadlines.Attempt attempt;
        private BoundedStream content;

        BoundedEntity(HttpEntity answer, AttemptDeadlines.Attempt attempt) {
            super(answer);
            this.attempt = attempt;
        }

        @Override
        public long getContentLength() {
            long declared = super.getContentLength();
            return declared >= 0 && declared <= MAX_ANSWER_BYTES ? declared : -1;
        }

        @Override
        public boolean isRepeatable() {
            return false;
        }

        @Override
        public synchronized InputStream getContent() throws IOException {
            if (content == null) {
                content = new BoundedStream(super.getContent(), attempt);
            }
            return content;
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            try (InputStream in = getContent()) {
                in.transferTo(out);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                if (content == null) {
                    attempt.abortNow();
                } else {
                    content.close();
                }
            } finally {
                attempt.close();
            }
        }
    }

    private static final class BoundedStream extends BoundedReads {
        private final AttemptDeadlines.Attempt attempt;
        private int read;
        private boolean ended;
        private boolean closed;

        BoundedStream(InputStream in, AttemptDeadlines.Attempt attempt) {
            super(in);
            this.attempt = attempt;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (read >= MAX_ANSWER_BYTES) {
                return -1;
            }
            try {
                int n = in == null ? -1 : in.read(buffer, offset, Math.min(length, MAX_ANSWER_BYTES - read));
                if (n < 0) {
                    ended = true;
                } else {
                    read += n;
                }
                return n;
            } catch (IOException e) {
                if (attempt.expired()) {
                    throw attempt.timedOut(e);
                }
                throw e;
            }
        }

        @Override
        public long skip(long n) throws IOException {
            int length = (int) Math.max(0, Math.min(n, 512));
            return Math.max(0, read(new byte[length], 0, length));
        }

        @Override
        public int available() {
            return 0;
        }

        @Override
        public synchronized void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (!ended) {
                    attempt.abortNow();
                }
                if (in != null) {
                    in.close();
                }
            } catch (IOException afterAbort) {
                // the connection is gone, which is what closing early means
                if (ended) {
                    throw afterAbort;
                }
            } finally {
                attempt.close();
            }
        }
    }
}
