package io.github.scheduledeventsbridge.imds;

import org.apache.camel.Exchange;
import org.apache.camel.Headers;
import org.apache.camel.Message;
import org.apache.hc.core5.http.io.EofSensorInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Route step after the IMDS GET: only a 200 with a complete document of at most
 * {@code bridge.imds.max-document-size} bytes becomes a document. The poll's endpoint hands over the
 * response as a stream (no stream cache), so an oversized answer is refused by its Content-Length, or
 * after reading one byte more than the limit, never buffered whole.
 *
 * <p>Conditional polls: when IMDS sends an {@code ETag} with a document, the next GET carries it as
 * {@code If-None-Match} ({@link #validator()}), and a {@code 304 Not Modified} is that same document, with
 * nothing to read, parse or compare. The validator lives only in memory, beside the document it names: the
 * first poll of every run is unconditional, so a 304 can never stand for a document this run has not read.
 */
public final class ImdsResponse {

    public static final long DEFAULT_MAX_DOCUMENT_SIZE = 1_048_576;
    static final int NOT_MODIFIED = 304;
    static final String IF_NONE_MATCH = "If-None-Match";

    private final ImdsDocumentParser parser = new ImdsDocumentParser(true);
    private final long maxDocumentSize;
    /** The last document this run read, its bytes and the ETag IMDS sent with them (or null); replaced together. */
    private volatile Last last;

    private record Last(byte[] body, ImdsDocument document, String etag) {
    }

    public ImdsResponse() {
        this(DEFAULT_MAX_DOCUMENT_SIZE);
    }

    public ImdsResponse(long maxDocumentSize) {
        this.maxDocumentSize = maxDocumentSize;
    }

    /**
     * Route step before the GET: If-None-Match with the ETag IMDS sent with the document this run holds; no
     * header without one (then the GET is unconditional). Only {@link #toDocument} changes it, on the same thread.
     */
    public void conditional(@Headers Map<String, Object> headers) {
        String etag = validator();
        if (etag != null) {
            headers.put(IF_NONE_MATCH, etag);
        }
    }

    /** The ETag sent as If-None-Match by the next GET, or null. */
    public String validator() {
        Last known = last;
        return known == null ? null : known.etag();
    }

    public ImdsDocument toDocument(Exchange exchange) {
        Message message = exchange.getMessage();
        Integer status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status != null && status == NOT_MODIFIED) {
            return notModified();
        }
        if (status == null || status != 200) {
            throw new ImdsStatusException(status == null ? -1 : status, message.getHeader("Retry-After", String.class));
        }
        Long declared = message.getHeader(Exchange.CONTENT_LENGTH, Long.class);
        Object body = message.getBody();
        if (declared != null && declared > maxDocumentSize) {
            abort(body);
            throw new DocumentTooLargeException(declared + " bytes (Content-Length)", maxDocumentSize);
        }
        byte[] bytes;
        if (body instanceof InputStream stream) {
            bytes = readAtMost(stream, declared);
        } else {
            String text = message.getBody(String.class);
            bytes = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > maxDocumentSize) {
                throw new DocumentTooLargeException("more than " + maxDocumentSize + " bytes", maxDocumentSize);
            }
        }
        return parse(bytes, etag(message));
    }

    /**
     * The document the If-None-Match named. A 304 to a GET without one (the first of a run, or after IMDS stopped
     * sending ETags) vouches for no document: it is never "unchanged" but a failed poll like any other status
     * (one WARN per outage), so the next tick asks again, unconditionally, and nothing is hidden by a retry.
     */
    private ImdsDocument notModified() {
        Last known = last;
        if (known == null || known.etag() == null) {
            throw new ImdsStatusException(NOT_MODIFIED, null, "to a GET without If-None-Match: not taken as unchanged");
        }
        return known.document();
    }

    /**
     * IMDS answers the same bytes poll after poll: those are not parsed again (with 10,000 events, parsing
     * is most of an idle poll's cost), and the journal then compares the very same document instance.
     * The ETag is taken as sent, weak or strong, and an answer without one drops the validator.
     */
    private synchronized ImdsDocument parse(byte[] bytes, String etag) {
        Last known = last;
        if (known != null && Arrays.equals(bytes, known.body())) {
            if (!Objects.equals(etag, known.etag())) {
                last = new Last(known.body(), known.document(), etag);
            }
            return known.document();
        }
        ImdsDocument document = parser.parse(new String(bytes, StandardCharsets.UTF_8));
        last = new Last(bytes, document, etag);
        return document;
    }

    /** A single ETag header, verbatim; none, an empty one or several (a list) mean no validator. */
    private static String etag(Message message) {
        Object etag = message.getHeader("ETag");
        return etag instanceof String value && !value.isBlank() ? value : null;
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

    /** With a Content-Length (within the limit), exactly that: one array of the right size, not 8 KB and a copy. */
    private byte[] readAtMost(InputStream stream, Long declared) {
        try (stream) {
            long most = declared != null ? declared : maxDocumentSize + 1;
            byte[] bytes = stream.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, most));
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
