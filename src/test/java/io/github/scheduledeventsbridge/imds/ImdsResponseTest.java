package io.github.scheduledeventsbridge.imds;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImdsResponseTest {

    private final CamelContext camel = new DefaultCamelContext();
    private final ImdsResponse response = new ImdsResponse();

    @AfterEach
    void closeCamel() throws Exception {
        camel.close();
    }

    private Exchange answer(Integer status, String retryAfter, String body) {
        Exchange exchange = new DefaultExchange(camel);
        if (status != null) {
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        }
        if (retryAfter != null) {
            exchange.getMessage().setHeader("Retry-After", retryAfter);
        }
        exchange.getMessage().setBody(body);
        return exchange;
    }

    @Test
    @DisplayName("a 200 with a complete document becomes the document")
    void okDocument() {
        ImdsDocument doc = response.toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_2));

        assertThat(doc).isEqualTo(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));
    }

    @ParameterizedTest(name = "[{index}] HTTP {0}")
    @ValueSource(ints = {201, 204, 404, 410, 429, 500, 503})
    @DisplayName("any other status is never a document, even with a valid body")
    void nonOkStatus(int status) {
        assertThatThrownBy(() -> response.toDocument(answer(status, "7", LiveMigrationSeed.INCARNATION_4)))
                .isInstanceOfSatisfying(ImdsStatusException.class, e -> {
                    assertThat(e.status()).isEqualTo(status);
                    assertThat(e.retryAfter()).isEqualTo("7");
                });
    }

    @Test
    @DisplayName("no status at all is a failure with status -1")
    void noStatus() {
        assertThatThrownBy(() -> response.toDocument(answer(null, null, LiveMigrationSeed.INCARNATION_4)))
                .isInstanceOfSatisfying(ImdsStatusException.class, e -> assertThat(e.status()).isEqualTo(-1));
    }

    @Test
    @DisplayName("a 200 with an empty or truncated body is rejected")
    void okButBadBody() {
        assertThatThrownBy(() -> response.toDocument(answer(200, null, "")))
                .isInstanceOf(InvalidDocumentException.class);
        assertThatThrownBy(() -> response.toDocument(answer(200, null, null)))
                .isInstanceOf(InvalidDocumentException.class);
        String doc = LiveMigrationSeed.INCARNATION_2;
        assertThatThrownBy(() -> response.toDocument(answer(200, null, doc.substring(0, doc.length() - 3))))
                .isInstanceOf(InvalidDocumentException.class);
    }

    @Test
    @DisplayName("a declared Content-Length above the limit is refused before the body is read")
    void contentLengthOverLimit() {
        ImdsResponse limited = new ImdsResponse(100);
        Exchange exchange = answer(200, null, null);
        exchange.getMessage().setHeader(Exchange.CONTENT_LENGTH, "10485760");
        java.io.InputStream untouchable = new java.io.InputStream() {
            @Override
            public int read() {
                throw new AssertionError("the body must not be read");
            }
        };
        exchange.getMessage().setBody(untouchable);

        assertThatThrownBy(() -> limited.toDocument(exchange)).isInstanceOf(DocumentTooLargeException.class)
                .hasMessageContaining("bridge.imds.max-document-size (100 bytes)");
    }

    @Test
    @DisplayName("a streamed body (no Content-Length) is read up to the limit plus one byte, then refused")
    void streamOverLimit() {
        ImdsResponse limited = new ImdsResponse(1024);
        java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
        java.io.InputStream endless = new java.io.InputStream() {
            @Override
            public int read() {
                read.incrementAndGet();
                return ' ';
            }
        };
        Exchange exchange = answer(200, null, null);
        exchange.getMessage().setBody(endless);

        assertThatThrownBy(() -> limited.toDocument(exchange)).isInstanceOf(DocumentTooLargeException.class);
        assertThat(read.get()).isEqualTo(1025);
    }

    @Test
    @DisplayName("a streamed document within the limit is parsed; exactly the limit is fine")
    void streamWithinLimit() {
        byte[] doc = LiveMigrationSeed.INCARNATION_2.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Exchange exchange = answer(200, null, null);
        exchange.getMessage().setBody(new java.io.ByteArrayInputStream(doc));

        assertThat(new ImdsResponse(doc.length).toDocument(exchange))
                .isEqualTo(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));
        assertThatThrownBy(() -> new ImdsResponse(doc.length - 1).toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_2)))
                .isInstanceOf(DocumentTooLargeException.class);
    }

    @Test
    @DisplayName("with a Content-Length within the limit, the stream is read to that length")
    void streamWithContentLength() {
        byte[] doc = LiveMigrationSeed.INCARNATION_2.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Exchange exchange = answer(200, null, null);
        exchange.getMessage().setHeader(Exchange.CONTENT_LENGTH, Integer.toString(doc.length));
        exchange.getMessage().setBody(new java.io.ByteArrayInputStream(doc));

        assertThat(new ImdsResponse(doc.length).toDocument(exchange))
                .isEqualTo(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_2));
    }

    @Test
    @DisplayName("the same bytes again give the same document without parsing again; other bytes are parsed")
    void sameBodyNotParsedAgain() {
        ImdsDocument first = response.toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_2));

        assertThat(response.toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_2))).isSameAs(first);
        ImdsDocument next = response.toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_3));
        assertThat(next).isEqualTo(LiveMigrationSeed.parse(LiveMigrationSeed.INCARNATION_3));
        assertThatThrownBy(() -> response.toDocument(answer(200, null, "{\"DocumentIncarnation\":")))
                .isInstanceOf(InvalidDocumentException.class);
        assertThat(response.toDocument(answer(200, null, LiveMigrationSeed.INCARNATION_3))).isSameAs(next);
    }

    private Exchange tagged(int status, String body, Object etag) {
        Exchange exchange = answer(status, null, body);
        if (etag != null) {
            exchange.getMessage().setHeader("ETag", etag);
        }
        return exchange;
    }

    @Test
    @DisplayName("a 304 to our If-None-Match is the document that ETag came with, the very same instance")
    void notModifiedIsTheHeldDocument() {
        assertThat(response.validator()).as("the first GET of a run is unconditional").isNull();
        ImdsDocument first = response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, "W/\"x\""));

        java.util.Map<String, Object> request = new java.util.HashMap<>();
        response.conditional(request);
        assertThat(request).as("taken verbatim, weak or not").containsExactly(java.util.Map.entry("If-None-Match", "W/\"x\""));
        assertThat(response.toDocument(tagged(304, null, null))).isSameAs(first);
        assertThat(response.validator()).isEqualTo("W/\"x\"");
    }

    @Test
    @DisplayName("a 304 to a GET without If-None-Match is never a document but a failed poll")
    void unaskedNotModified() {
        java.util.Map<String, Object> request = new java.util.HashMap<>();
        response.conditional(request);
        assertThat(request).as("the first GET of a run is unconditional").isEmpty();
        assertThatThrownBy(() -> response.toDocument(tagged(304, null, null)))
                .isInstanceOfSatisfying(ImdsStatusException.class, e -> assertThat(e.status()).isEqualTo(304))
                .hasMessageContaining("without If-None-Match");

        response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, null));
        response.conditional(request);
        assertThat(request).as("a document without ETag gives no validator").isEmpty();
        assertThatThrownBy(() -> response.toDocument(tagged(304, null, null)))
                .isInstanceOf(ImdsStatusException.class);
    }

    @Test
    @DisplayName("each 200 sets the validator, even with the same bytes; none, blank or several ETags clear it")
    void validatorFollowsTheLastAnswer() {
        ImdsDocument first = response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, "\"a\""));
        assertThat(response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, "\"b\""))).isSameAs(first);
        assertThat(response.validator()).isEqualTo("\"b\"");

        response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, null));
        assertThat(response.validator()).isNull();
        response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_3, " "));
        assertThat(response.validator()).isNull();
        response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_3, java.util.List.of("\"c\"", "\"d\"")));
        assertThat(response.validator()).isNull();
    }

    @Test
    @DisplayName("a failed answer keeps the validator of the document still held")
    void failedAnswerKeepsTheValidator() {
        ImdsDocument first = response.toDocument(tagged(200, LiveMigrationSeed.INCARNATION_2, "\"a\""));
        assertThatThrownBy(() -> response.toDocument(tagged(200, "{\"DocumentIncarnation\":", "\"broken\"")))
                .isInstanceOf(InvalidDocumentException.class);
        assertThatThrownBy(() -> response.toDocument(tagged(500, null, "\"err\"")))
                .isInstanceOf(ImdsStatusException.class);

        assertThat(response.validator()).isEqualTo("\"a\"");
        assertThat(response.toDocument(tagged(304, null, null))).isSameAs(first);
    }
}
