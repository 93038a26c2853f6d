package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.imds.PollBackoff;
import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import io.github.scheduledeventsbridge.testing.ScriptedImds.Get;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.camel.health.HealthCheckHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.B;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Conditional polls over real sockets (issue 14): an ETag from IMDS comes back as If-None-Match, a 304 is the
 * document the agent holds (a successful poll, nothing to compare), and a 304 the agent did not ask for is never
 * taken as "unchanged".
 */
class ConditionalPollTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A strong ETag per document text, as IMDS might derive it. */
    private static final UnaryOperator<String> BY_CONTENT = doc -> "\"" + Integer.toHexString(doc.hashCode()) + "\"";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    private InProcessAgent start() throws Exception {
        // Readiness goes DOWN after 1.5 s without a successful poll: a 304 that did not count would show.
        return fixture.start("bridge.health.imds-stale-after", "1500");
    }

    private long notModified() {
        return fixture.imds().gets().stream().filter(g -> g.status() == 304).count();
    }

    @Test
    void anEtagComesBackAsIfNoneMatchAndA304IsASuccessfulPollThatChangesNothing() throws Exception {
        String doc = Docs.document(2, scheduled(A));
        fixture.imds().etags(BY_CONTENT);
        fixture.imds().serve(doc);
        try (InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> fixture.webhook().delivered().size() == 1);
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            MeterRegistry registry = agent.context().getRegistry().findSingleByType(MeterRegistry.class);
            await().atMost(WAIT).until(() -> notModified() >= 3);
            Instant since = Instant.now();
            double ok = okPolls(registry);
            long timed = registry.get("bridge.imds.poll").timer().count();
            // Only 304s from here on (the document did not change), for longer than the readiness limit.
            await().atMost(WAIT).until(() -> notModified() >= 15);
            assertThat(fixture.imds().documentsServed()).as("the document was sent once").isEqualTo(1);
            assertThat(backoff.lastAnswer()).as("a 304 is a successful poll").isAfter(since);
            assertThat(okPolls(registry)).isGreaterThan(ok);
            assertThat(registry.get("bridge.imds.poll").timer().count()).as("latency of 304s too").isGreaterThan(timed);
            assertThat(imdsReadiness(agent)).isEqualTo("UP");
            assertThat(backoff.lastFailureKind()).isEqualTo("none");
        }
        List<Get> gets = fixture.imds().gets();
        assertThat(gets.get(0)).isEqualTo(new Get(null, 200));
        assertThat(gets.subList(1, gets.size())).allSatisfy(g -> assertThat(g).isEqualTo(new Get(BY_CONTENT.apply(doc), 304)));
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");
    }

    @Test
    void aChangeServedWithANewEtagIsReportedAndItsEtagUsedFromThen() throws Exception {
        String first = Docs.document(2, scheduled(A));
        String second = Docs.document(3, Docs.started(A, "Reboot", "vm-a"), scheduled(B));
        fixture.imds().etags(BY_CONTENT);
        fixture.imds().serve(first);
        try (InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> notModified() >= 2);
            fixture.imds().serve(second);
            await().atMost(WAIT).until(() -> fixture.webhook().delivered().size() == 3);
            int before = fixture.imds().gets().size();
            await().atMost(WAIT).until(() -> fixture.imds().gets().size() >= before + 3);
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled", "Started");
        assertThat(fixture.webhook().transitionsOf(B)).containsExactly("Scheduled");
        List<Get> gets = fixture.imds().gets(); // one copy: its size and its last element from the same read
        Get last = gets.get(gets.size() - 1);
        assertThat(last).isEqualTo(new Get(BY_CONTENT.apply(second), 304));
        assertThat(fixture.imds().gets()).contains(new Get(BY_CONTENT.apply(first), 200));
    }

    @Test
    void a304ToTheFirstPollOfARunIsNotUnchangedTheDocumentIsFetched() throws Exception {
        fixture.imds().etags(BY_CONTENT);
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> fixture.webhook().delivered().size() == 1 && notModified() >= 1);
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");
        // While the agent was down A started, yet IMDS answers the new run's first (unconditional) GET with 304.
        fixture.imds().serve(Docs.document(3, Docs.started(A, "Reboot", "vm-a")));
        fixture.imds().answerNotModified(1);
        int firstOfRun = fixture.imds().gets().size();
        try (LogCapture log = LogCapture.install(); InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> fixture.webhook().transitionsOf(A).size() == 2);
            // A failed poll like any other unexpected status (one WARN), so the next one asks again, unconditionally.
            PollBackoff backoff = agent.bean("pollBackoff", PollBackoff.class);
            assertThat(backoff.lastFailureKind()).isEqualTo("http-304");
            assertThat(backoff.consecutiveFailures()).isZero();
            assertThat(log.lines()).filteredOn(l -> l.contains("304") && l.contains("without If-None-Match"))
                    .hasSize(1).allMatch(l -> l.startsWith("WARN"));
        }
        assertThat(fixture.imds().gets().subList(firstOfRun, firstOfRun + 2)).containsExactly(new Get(null, 304), new Get(null, 200));
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled", "Started");
    }

    @Test
    void anImdsWithoutEtagsIsPolledUnconditionallyAndOneThatStopsSendingThemToo() throws Exception {
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> fixture.webhook().delivered().size() == 1);
            fixture.imds().serve(Docs.document(3, Docs.started(A, "Reboot", "vm-a")));
            await().atMost(WAIT).until(() -> fixture.webhook().delivered().size() == 2);
            assertThat(fixture.imds().gets()).isNotEmpty().allSatisfy(g -> assertThat(g).isEqualTo(new Get(null, 200)));

            // IMDS starts sending ETags, then stops again: the validator goes with the next answer without one.
            fixture.imds().etags(BY_CONTENT);
            await().atMost(WAIT).until(() -> notModified() >= 2);
            fixture.imds().etags(null);
            int stopped = fixture.imds().gets().size();
            await().atMost(WAIT).until(() -> fixture.imds().gets().size() >= stopped + 5);
            // The validator goes back at most twice more: on a GET already under way, and on the one answered without.
            List<Get> gets = fixture.imds().gets(); // one copy: the agent is still polling
            List<Get> after = gets.subList(stopped + 2, gets.size());
            assertThat(after).allSatisfy(g -> assertThat(g).isEqualTo(new Get(null, 200)));
            assertThat(imdsReadiness(agent)).isEqualTo("UP");
        }
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled", "Started");
    }

    @Test
    void weakAndMalformedEtagsGoBackVerbatim() throws Exception {
        // The second is not a valid entity-tag (unquoted, a space): still IMDS's to judge, so it goes back as it came.
        fixture.imds().etags(doc -> doc.contains(B) ? "odd etag" : "W/\"x\"");
        fixture.imds().serve(Docs.document(2, scheduled(A)));
        try (InProcessAgent agent = start()) {
            await().atMost(WAIT).until(() -> notModified() >= 2);
            fixture.imds().serve(Docs.document(3, scheduled(A), scheduled(B)));
            await().atMost(WAIT).until(() -> fixture.imds().gets().contains(new Get("odd etag", 304))
                    && fixture.webhook().transitionsOf(B).size() == 1);
        }
        assertThat(fixture.imds().gets()).contains(new Get("W/\"x\"", 304));
        assertThat(fixture.webhook().transitionsOf(A)).containsExactly("Scheduled");
        assertThat(fixture.webhook().transitionsOf(B)).containsExactly("Scheduled");
    }

    private static double okPolls(MeterRegistry registry) {
        return Search.in(registry).name("bridge.imds.polls").tags("outcome", "ok").counters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    /** The IMDS readiness check: "UP", or "DOWN" and why ("full": the default level hides checks that are UP). */
    private static String imdsReadiness(InProcessAgent agent) {
        return HealthCheckHelper.invoke(agent.context(), check -> Map.of(), check -> false, "full").stream()
                .filter(r -> r.getCheck().getId().equals("imds")).findFirst()
                .map(r -> (r.getState() + " " + r.getMessage().orElse("")).trim()).orElse("missing");
    }
}
