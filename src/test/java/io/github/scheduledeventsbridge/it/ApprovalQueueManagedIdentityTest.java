package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.ApprovalQueueConfiguration;
import io.github.scheduledeventsbridge.identity.ManagedIdentityTokens;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.simulator.ImdsSimulator;
import io.github.scheduledeventsbridge.state.TransitionJournal;
import io.github.scheduledeventsbridge.testing.Azurite;
import io.github.scheduledeventsbridge.testing.FreePorts;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The documented path end to end on one machine, as docs/approvals.md tells it: the built-in simulator is IMDS and
 * the identity endpoint; Azurite serves the queue over HTTPS with --oauth basic, checking the VM's token; the
 * certificate is made by the test and trusted by this agent's queue client alone (bound for it, never the JVM's
 * trust store); bin/approve --queue puts the signed approval on the queue; the agent opens no approval port.
 */
class ApprovalQueueManagedIdentityTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";

    @TempDir
    Path work;

    @Test
    void bin_approve_queuePutsAnApprovalThatTheVmReceivesWithItsIdentityOverHttps() throws Exception {
        int approvalPort = FreePorts.unused();
        try (Azurite azurite = Azurite.https(work.resolve("azurite"));
             LogCapture log = LogCapture.install()) {
            azurite.create("approve-sim-vm-0");
            try (InProcessAgent agent = InProcessAgent.builder(work.resolve("state"))
                    .with("bridge.simulator.enabled", "true")
                    .with("bridge.simulator.scenarios", "redeploy")
                    .with("bridge.simulator.speed", "10")
                    .with("bridge.approval.secret", SECRET)
                    .with("bridge.approval.port", Integer.toString(approvalPort))
                    .with("bridge.approval.http.enabled", "false")
                    .with("bridge.approval.queue.url", "https://127.0.0.1:" + azurite.port() + "/devstoreaccount1/approve-{vmName}")
                    .with("bridge.approval.queue.poll-interval", "300")
                    .bind(ApprovalQueueConfiguration.TLS_BEAN, azurite.tls())
                    .start()) {
                TransitionJournal journal = agent.bean("journal", TransitionJournal.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> journal.lastDocument().events().stream().anyMatch(ScheduledEvent::isScheduled));
                String eventId = journal.lastDocument().events().stream().filter(ScheduledEvent::isScheduled).findFirst()
                        .orElseThrow().eventId();
                ImdsSimulator simulator = agent.bean("imdsSimulator", ImdsSimulator.class);
                // The approver's own token: here from the simulator too (in Azure: az account get-access-token).
                String token = new ManagedIdentityTokens(simulator.identityTokenUri(), Duration.ofSeconds(10), Clock.systemUTC())
                        .token("https://storage.azure.com/", "approver").value();

                ProcessBuilder approve = new ProcessBuilder("bin/approve", "--queue", eventId).redirectErrorStream(true);
                approve.environment().put("BRIDGE_APPROVAL_SECRET", SECRET);
                approve.environment().put("APPROVAL_QUEUE_URL", azurite.queueUrl("approve-sim-vm-0").toString());
                approve.environment().put("APPROVAL_QUEUE_TOKEN", token);
                approve.environment().put("APPROVAL_CURL_OPTS", "--cacert " + azurite.certificate());
                Process process = approve.start();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(process.exitValue()).as(output).isZero();
                assertThat(output).contains("HTTP 201");

                await().atMost(Duration.ofSeconds(60)).until(() -> !journal.approvedEvents().isEmpty());
                await().atMost(Duration.ofSeconds(30)).until(() -> !simulator.documentJson().contains("\"Scheduled\""));
                assertThat(log.text()).contains("from the queue https://127.0.0.1:" + azurite.port(), "system-assigned identity",
                        "approve-sim-vm-0 message", "approved, IMDS accepted");
                assertThatThrownBy(() -> new Socket("127.0.0.1", approvalPort).close()).isInstanceOf(ConnectException.class);
                assertThat(output).doesNotContain(token);

                // The Python snippet of docs/approvals.md, as printed: a message the agent verifies too (the event is
                // approved already, which the agent says: the signature held).
                String docs = Files.readString(Path.of("docs/approvals.md"));
                int start = docs.indexOf("```python\n", docs.indexOf("or with Python's standard library alone"));
                String snippet = docs.substring(start + "```python\n".length(), docs.indexOf("```", start + 10))
                        .replace("C7061BAC-AFDC-4513-B24B-AA5F13A16123", eventId);
                ProcessBuilder python = new ProcessBuilder("python3", "-c", snippet).redirectErrorStream(true);
                python.environment().putAll(approve.environment());
                python.environment().put("SSL_CERT_FILE", azurite.certificate().toString());
                Process run = python.start();
                String printed = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(printed.strip()).as(printed).isEqualTo("201");
                // Signed in the same second as bin/approve's, the body and its signature are the same: a replay,
                // refused before IMDS; a second later, a new signature for an event approved already. Both held.
                var meters = agent.context().getRegistry().findSingleByType(io.micrometer.core.instrument.MeterRegistry.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> log.text().contains("already approved by this agent")
                        || meters.find("bridge.approval.queue.messages").tag("outcome", "replay").counter() != null);
                assertThat(log.text()).doesNotContain("bad-signature", "BAD_SIGNATURE");
                assertThat(meters.find("bridge.approval.queue.messages").tag("outcome", "bad-signature").counter()).isNull();
            }
        }
    }
}
