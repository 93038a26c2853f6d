package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class WebhookSignerTest {

    /** Computed once, outside Java: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac s3cr3t */
    private static final String VECTOR = "sha256=8dbbbbf4523b10bbb793e74d854144c45acccc2d233667b1c06b805b6ded8a84";
    private static final String TIMESTAMP = "1700000000";
    private static final byte[] BODY = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L, 999_000_000L), ZoneOffset.UTC);

    private final WebhookSigner signer = new WebhookSigner("s3cr3t", CLOCK);
    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void closeCamel() throws Exception {
        camel.close();
    }

    @Test
    @DisplayName("the signature matches an independently computed HMAC-SHA256 vector")
    void knownVector() {
        assertThat(signer.signature(TIMESTAMP, BODY)).isEqualTo(VECTOR);
    }

    @Test
    @DisplayName("verify accepts the vector")
    void verifyAccepts() {
        assertThat(signer.verify(TIMESTAMP, BODY, VECTOR)).isTrue();
    }

    @Test
    @DisplayName("verify refuses a one-character change anywhere: signature, timestamp or body")
    void verifyRefusesOneCharacterChange() {
        String lastChanged = VECTOR.substring(0, VECTOR.length() - 1) + "5";
        String firstHexChanged = "sha256=9" + VECTOR.substring("sha256=".length() + 1);

        assertThat(signer.verify(TIMESTAMP, BODY, lastChanged)).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, firstHexChanged)).isFalse();
        assertThat(signer.verify("1700000001", BODY, VECTOR)).isFalse();
        assertThat(signer.verify(TIMESTAMP, "{\"a\":2}".getBytes(StandardCharsets.UTF_8), VECTOR)).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, VECTOR + "0")).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, VECTOR.substring(0, VECTOR.length() - 1))).isFalse();
    }

    @Test
    @DisplayName("verify refuses a wrong-case prefix and upper-case hex")
    void verifyRefusesWrongCase() {
        assertThat(signer.verify(TIMESTAMP, BODY, "SHA256=" + VECTOR.substring("sha256=".length()))).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, "sha256=" + VECTOR.substring("sha256=".length()).toUpperCase()))
                .isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, VECTOR.substring("sha256=".length()))).as("no prefix").isFalse();
    }

    @Test
    @DisplayName("verify refuses missing values")
    void verifyRefusesMissing() {
        assertThat(signer.verify(null, BODY, VECTOR)).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, null)).isFalse();
        assertThat(signer.verify(TIMESTAMP, BODY, "")).isFalse();
        assertThat(signer.verify("", BODY, VECTOR)).isFalse();
    }

    @Test
    @DisplayName("a signer without a secret verifies nothing, not even its own signature")
    void noSecretVerifiesNothing() {
        WebhookSigner empty = new WebhookSigner("", CLOCK);
        WebhookSigner none = new WebhookSigner(null, CLOCK);

        assertThat(empty.hasSecret()).isFalse();
        assertThat(none.hasSecret()).isFalse();
        assertThat(empty.verify(TIMESTAMP, BODY, VECTOR)).isFalse();
        assertThat(none.verify(TIMESTAMP, BODY, VECTOR)).isFalse();
        assertThat(empty.verify(TIMESTAMP, BODY, "sha256=")).isFalse();
    }

    @Test
    @DisplayName("sign(exchange) sets the Unix-seconds timestamp and the matching signature")
    void signSetsBothHeaders() {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody("{\"a\":1}");

        signer.sign(exchange);

        assertThat(exchange.getMessage().getHeader(WebhookSigner.TIMESTAMP_HEADER, String.class)).isEqualTo(TIMESTAMP);
        assertThat(exchange.getMessage().getHeader(WebhookSigner.SIGNATURE_HEADER, String.class)).isEqualTo(VECTOR);
        assertThat(WebhookSigner.TIMESTAMP_HEADER).isEqualTo("X-Bridge-Timestamp");
        assertThat(WebhookSigner.SIGNATURE_HEADER).isEqualTo("X-Bridge-Signature");
    }

    @Test
    @DisplayName("sign(exchange) signs a byte[] body the same way")
    void signBytesBody() {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(BODY);

        signer.sign(exchange);

        assertThat(exchange.getMessage().getHeader(WebhookSigner.SIGNATURE_HEADER, String.class)).isEqualTo(VECTOR);
    }

    @Test
    @DisplayName("sign(exchange) with an empty secret sets only the timestamp")
    void signWithoutSecret() {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody("{\"a\":1}");

        new WebhookSigner("", CLOCK).sign(exchange);

        assertThat(exchange.getMessage().getHeader(WebhookSigner.TIMESTAMP_HEADER, String.class)).isEqualTo(TIMESTAMP);
        assertThat(exchange.getMessage().getHeaders()).doesNotContainKey(WebhookSigner.SIGNATURE_HEADER);
    }
}
