package io.github.scheduledeventsbridge.simulator;

import io.github.scheduledeventsbridge.testing.ManualClock;

import io.github.scheduledeventsbridge.simulator.ImdsSimulator.Options;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The simulator's ETag and 304 Not Modified, over real sockets, on a clock that moves only when told to. */
class ImdsSimulatorEtagTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ManualClock clock = new ManualClock(Instant.parse("2022-04-11T22:26:00Z"));
    private ImdsSimulator sim;

    @AfterEach
    void close() {
        if (sim != null) {
            sim.close();
        }
    }

    @Test
    void aDocumentCarriesAnEtagAndIsNotSentAgainWhileIfNoneMatchNamesIt() throws Exception {
        sim = new ImdsSimulator(Options.defaults().withClock(clock).withScenarios(List.of("freeze"))).start();

        HttpResponse<String> first = get(null);
        String etag = first.headers().firstValue("ETag").orElseThrow();
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(etag).matches("\"[0-9a-f]{16}\"");

        HttpResponse<String> again = get(etag);
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(again.headers().firstValue("ETag")).contains(etag);
        assertThat(get("W/" + etag).statusCode()).as("compared weakly").isEqualTo(304);
        assertThat(get("\"other\", " + etag).statusCode()).as("one of a list").isEqualTo(304);
        assertThat(get("*").statusCode()).isEqualTo(304);
        assertThat(get("\"other\"").statusCode()).isEqualTo(200);
        assertThat(sim.notModifiedServed()).isEqualTo(4);

        // The first scenario appears: a new document, a new ETag, and the old one no longer matches.
        clock.advance(Duration.ofMillis(84));
        HttpResponse<String> changed = get(etag);
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).isEqualTo(sim.documentJson()).contains("Freeze");
        assertThat(changed.headers().firstValue("ETag")).hasValueSatisfying(e -> assertThat(e).isNotEqualTo(etag));
        assertThat(get(changed.headers().firstValue("ETag").orElseThrow()).statusCode()).isEqualTo(304);
    }

    private HttpResponse<String> get(String ifNoneMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sim.scheduledEventsUri() + "?api-version=2020-07-01"))
                .header("Metadata", "true").timeout(Duration.ofSeconds(10)).GET();
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
