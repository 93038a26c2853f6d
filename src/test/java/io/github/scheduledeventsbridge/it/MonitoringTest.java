package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * packaging/monitoring/: the alert rules pass promtool's checks and unit tests (promtool is installed by
 * bin/install-prerequisites; missing, the test fails), and every metric the rules and the Grafana dashboard
 * query exists in a real scrape of the agent.
 */
class MonitoringTest {

    private static final Path MONITORING = Path.of("packaging/monitoring");
    private static final Pattern METRIC = Pattern.compile("\\b((?:bridge|jvm|process)_[a-z0-9_]+)");

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s");

    private static String run(Path directory, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + " said:\n" + output).isZero();
        return output;
    }

    @Test
    void theAlertRulesPassPromtoolAndTheirUnitTests() throws Exception {
        assertThat(run(MONITORING, "promtool", "check", "rules", "alerts.yml")).contains("SUCCESS: 7 rules found");
        assertThat(run(MONITORING, "promtool", "test", "rules", "alerts.test.yml")).contains("SUCCESS");
    }

    /**
     * The agent itself down or not scraped: the rules and the dashboard ask Prometheus's own {@code up} for the
     * scrape job the documentation's example configures, so they cannot drift apart.
     */
    @Test
    void theAgentDownOrNotScrapedIsAlertedAndOnTheDashboardForTheDocumentedJob() throws Exception {
        Matcher job = Pattern.compile("job_name: (\\S+)")
                .matcher(Files.readString(Path.of("config/management.example.properties")));
        assertThat(job.find()).isTrue();
        String up = "up{job=\"" + job.group(1) + "\"";
        String rules = Files.readString(MONITORING.resolve("alerts.yml"));
        assertThat(rules).contains("expr: " + up + "} == 0", "expr: absent(" + up + "})")
                .doesNotContainPattern("job=\"(?!" + Pattern.quote(job.group(1)) + "\")");
        assertThat(Files.readString(MONITORING.resolve("grafana-dashboard.json")))
                .contains(up.replace("\"", "\\\""));
    }

    @Test
    void everyMetricTheDashboardAndTheRulesQueryExistsInARealScrape() throws Exception {
        Set<String> used = new TreeSet<>();
        for (String file : List.of("alerts.yml", "grafana-dashboard.json")) {
            Matcher matcher = METRIC.matcher(Files.readString(MONITORING.resolve(file)));
            while (matcher.find()) {
                used.add(matcher.group(1));
            }
        }
        assertThat(used).contains("bridge_imds_last_success_timestamp_seconds", "bridge_spool_oldest_age_seconds",
                "bridge_imds_poll_seconds_bucket", "bridge_build_info", "bridge_spool_orphaned", "bridge_drain_draining");
        // A spool directory no sink owns, so that bridge_spool_orphaned is scraped too.
        Path orphan = Files.createDirectories(fixture.state().resolve("spool/webhook-000000000000"));
        Files.writeString(orphan.resolve("0000000000000000001.json"), "{}");
        ScriptedImds imds = fixture.imds();
        WebhookReceiver webhook = fixture.webhook();
        imds.serve(Docs.document(1));
        try (InProcessAgent agent = fixture.builder()
                .with("bridge.drain.port", "0").with("bridge.drain.host", "127.0.0.1").start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> OperatorFirstHourTest.get(agent, "/metrics")
                    .contains("bridge_imds_polls_total{"));
            Set<String> scraped = new TreeSet<>();
            for (String line : OperatorFirstHourTest.get(agent, "/metrics").split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    scraped.add(line.split("[{ ]", 2)[0]);
                }
            }
            assertThat(scraped).as("scraped metric names").containsAll(used);
        }
    }
}
