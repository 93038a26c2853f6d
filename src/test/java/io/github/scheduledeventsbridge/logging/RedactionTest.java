package io.github.scheduledeventsbridge.logging;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Authorization: Basic YnJpZGdlOnNlY3JldA==      | Authorization: *** ***",
            "WWW-Authenticate said Bearer eyJhbGciOi.x.y ok  | WWW-Authenticate said Bearer *** ok",
            "SharedAccessSignature sr=a&sig=b&se=1&skn=c     | SharedAccessSignature ***",
            "GET /api?code=abc%2Bdef&name=x HTTP/1.1         | GET /api?code=***&name=x HTTP/1.1",
            "sv=2021&sig=Zm9v&se=2030                        | sv=2021&sig=***&se=2030",
            "{\"password\":\"hunter2\",\"user\":\"ops\"}     | {\"password\":\"***\",\"user\":\"ops\"}",
            "x-functions-key: k3y, api_key=abc, token=t      | x-functions-key: ***, api_key=***, token=***",
            "client_secret='s3cr3t' AccountKey=abc==;        | client_secret='***' AccountKey=***;",
            "see https://hooks.example.com/services/T0/B0/XYZ | see https://hooks.example.com/…",
            "HTTP 503 Service Unavailable: try later         | HTTP 503 Service Unavailable: try later",
    })
    void peerTextLosesCredentialsAndKeepsTheRest(String text, String redacted) {
        assertThat(Redaction.peerText(text)).isEqualTo(redacted);
    }

    @Test
    void anAnswersBodyAlsoLosesTokenLikeRunsButNotEventIds() {
        assertThat(Redaction.answerBody("path /services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX and "
                + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIzNDU2Nzg5MA for "
                + "C7061BAC-AFDC-4513-B24B-AA5F13A16123 unknown_request_identifier"))
                .isEqualTo("path *** and *** for C7061BAC-AFDC-4513-B24B-AA5F13A16123 unknown_request_identifier");
    }

    @Test
    void configuredSecretsAreRemovedWhereverTheyAppear() {
        Redaction.secretsOf(URI.create("https://user:pa55word-xyz@hooks.example.com/hook/0123456789abcdefXYZ?t=tok-en-value"));
        Redaction.secret("short");
        assertThat(Redaction.peerText("echo pa55word-xyz tok-en-value 0123456789abcdefXYZ short"))
                .isEqualTo("echo *** *** *** short");
        assertThat(Redaction.peerText("pa55word-xyz%2B")).startsWith("***");
    }
}
