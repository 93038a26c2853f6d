package io.github.scheduledeventsbridge.imds;

import org.apache.camel.Exchange;
import org.apache.hc.core5.http.io.EofSensorInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Route step after the IMDS GET: only a 200 with a complete document of at most
 * {@code bridge.imds.max-document-size} bytes becomes a document. The poll's endpoint hands over the
 * response as a stream (no stream cache), so an oversized answer is refused by its Content-Length, or
 * after reading one byte more than the limit, never buffered whole.
 */
public final class ImdsResponse {

    public static final long DEFAULT_MAX_DOCUMENT_SIZE = 1_048_576;

    private final ImdsDocumentParser parser = new ImdsDocumentParser();
    private final long maxDocumentSize;
    private byte[] lastBody;
    private ImdsDocument lastDocument;

    public ImdsResponse() {
        this(DEFAULT_MAX_DOCUMENT_SIZE);
    }

    public ImdsResponse(long maxDocumentSize) {
        this.maxDocumentSize = maxDocumentSize;
    }

    public ImdsDocument toDocument(Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null || status != 200) {
            throw new ImdsStatusException(status == null ? -1 : status,
                    exchange.getMessage().getHeader("Retry-After", String.class));
        }
        Long declared = exchange.getMessage().getHeader(Exchange.CONTENT_LENGTH, Long.class);
        Object body = exchange.getMessage().getBody();
        if (declared != null && declared > maxDocumentSize) {
            abort(body);
            throw new DocumentTooLargeException(declared + " bytes (Content-Length)", maxDocumentSize);
        }
        byte[] bytes;
        if (body instanceof InputStream stream) {
            bytes = readAtMost(stream);
        } else {
            String text = exchange.getMessage().getBody(String.class);
            bytes = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > maxDocumentSize) {
                throw new DocumentTooLargeException("more than " + maxDocumentSize + " bytes", maxDocumentSize);
            }
        }
        return parse(bytes);
    }

    /**
     * IMDS answers the same bytes poll after poll: those are not parsed again (with 10,000 events, parsing
     * is most of an idle poll's cost), and the journal then compares the very same document instance.
     */
    private synchronized ImdsDocument parse(byte[] bytes) {
        if (lastDocument != null && Arrays.equals(bytes, lastBody)) {
            return lastDocument;
        }
        ImdsDocument document = parser.parse(new String(bytes, StandardCharsets.UTF_8));
        lastBody = bytes;
        lastDocument = document;
        return document;
    }

    /** Drops the connection, rather than let closing the response read the rest of an oversized answer. */
    private static void abort(Object body) {
        if (body instanceof EofSensorInputStream response) {
            try {
                response.abort();
            } catch (IOException ignored) {
                // The connection is being dropped anyway.
            }
        }
    }

    private byte[] readAtMost(InputStream stream) {
        try (stream) {
            byte[] bytes = stream.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxDocumentSize + 1));
            if (bytes.length > maxDocumentSize) {
                abort(stream);
                throw new DocumentTooLargeException("more than " + maxDocumentSize + " bytes", maxDocumentSize);
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("IMDS answer could not be read", e);
        }
    }
}
