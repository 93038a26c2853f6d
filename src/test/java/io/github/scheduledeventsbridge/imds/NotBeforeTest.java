package io.github.scheduledeventsbridge.imds;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class NotBeforeTest {

    @Test
    @DisplayName("RFC 1123 as IMDS sends it")
    void rfc1123() {
        assertThat(NotBefore.parse("Mon, 11 Apr 2022 22:26:58 GMT"))
                .isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
    }

    @Test
    @DisplayName("RFC 1123 with a single-digit day")
    void rfc1123SingleDigitDay() {
        assertThat(NotBefore.parse("Mon, 4 Apr 2022 08:05:09 GMT"))
                .isEqualTo(Instant.parse("2022-04-04T08:05:09Z"));
    }

    @Test
    @DisplayName("RFC 1123 surrounded by whitespace")
    void rfc1123Trimmed() {
        assertThat(NotBefore.parse("  Mon, 11 Apr 2022 22:26:58 GMT \n"))
                .isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
    }

    @Test
    @DisplayName("ISO-8601 with Z")
    void isoZulu() {
        assertThat(NotBefore.parse("2022-04-11T22:26:58Z")).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
    }

    @Test
    @DisplayName("ISO-8601 with an offset is converted to UTC")
    void isoOffset() {
        assertThat(NotBefore.parse("2022-04-12T00:26:58+02:00")).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
        assertThat(NotBefore.parse("2022-04-11T17:26:58-05:00")).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
    }

    @Test
    @DisplayName("ISO-8601 with fractional seconds keeps them")
    void isoFraction() {
        assertThat(NotBefore.parse("2022-04-11T22:26:58.123Z")).isEqualTo(Instant.parse("2022-04-11T22:26:58.123Z"));
        assertThat(NotBefore.parse("2022-04-11T22:26:58.1234567+00:00"))
                .isEqualTo(Instant.parse("2022-04-11T22:26:58.1234567Z"));
    }

    @Test
    @DisplayName("ISO-8601 without a zone is UTC")
    void isoLocalIsUtc() {
        assertThat(NotBefore.parse("2022-04-11T22:26:58")).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
        assertThat(NotBefore.parse("2022-04-11T22:26:58.5")).isEqualTo(Instant.parse("2022-04-11T22:26:58.500Z"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" is unknown")
    @NullSource
    @ValueSource(strings = {"", " ", "\t\n", "garbage", "11/04/2022 22:26", "2022-04-11", "Mon, 11 Apr 2022",
            "2022-13-45T99:99:99Z", "1649716018"})
    @DisplayName("empty, blank, null and garbage are unknown (null), never an error")
    void unknownIsNull(String text) {
        assertThat(NotBefore.parse(text)).isNull();
    }

    @Test
    @DisplayName("toIso renders ISO-8601 UTC, and null as null")
    void toIso() {
        assertThat(NotBefore.toIso(Instant.parse("2022-04-11T22:26:58Z"))).isEqualTo("2022-04-11T22:26:58Z");
        assertThat(NotBefore.toIso(Instant.parse("2022-04-11T22:26:58.120Z"))).isEqualTo("2022-04-11T22:26:58.120Z");
        assertThat(NotBefore.toIso(null)).isNull();
    }

    @Test
    @DisplayName("RFC 1123 and its ISO rendering round-trip to the same instant")
    void roundTrip() {
        Instant parsed = NotBefore.parse("Mon, 11 Apr 2022 22:26:58 GMT");
        assertThat(NotBefore.parse(NotBefore.toIso(parsed))).isEqualTo(parsed);
    }
}
