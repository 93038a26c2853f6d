package io.github.scheduledeventsbridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.scheduledeventsbridge.testing.AgentProcess;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.JvmOptions;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import io.github.scheduledeventsbridge.testing.WebhookReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged agent, with the shipped JVM options, loads the classes of a feature only when that feature is
 * configured: every library left unloaded is metadata, code and heap that a VM does not pay for (issue 14). Read
 * from the JVM's own class-loading log after a delivered transition, so whatever the first event touches counts.
 */
class LoadOnlyWhatIsConfiguredIT {

    private static final String EVENT = "C0FFEE00-1111-2222-3333-444444444444";
    private static final Pattern LOADED = Pattern.compile("\\[class,load\\] ([\\w.$]+) source:");

    /** Package prefixes of each optional feature's libraries. */
    private static final Map<String, List<String>> FEATURES = Map.of(
            // The machinery, not every class of the library: Camel's type-converter loaders (platform-http's, needed
            // by camel-micrometer-prometheus, and camel-mail's) load a dozen interfaces (Buffer, ByteBuf, Message)
            // at every start. No Vert.x instance (every port is on Jetty), no Netty channel, no mail session without
            // configuration.
            "Vert.x (on the classpath for camel-micrometer-prometheus, never started)",
            List.of("io.vertx.core.impl.", "io.vertx.core.http.", "io.netty.channel."),
            "Event Hubs (Azure SDK, Reactor, Proton-J)", List.of("com.azure.", "reactor.", "org.apache.qpid."),
            "email (Jakarta Mail)", List.of("jakarta.mail.Session", "jakarta.mail.Transport", "org.eclipse.angus.",
                    "org.apache.camel.component.mail.MailEndpoint", "org.apache.camel.component.mail.MailProducer"),
            "Hawtio console", List.of("io.hawt.", "org.eclipse.jetty.ee10.webapp.", "org.jolokia."),
            // Only Hawtio reads them, and it needs the management credentials.
            "Camel's JMX MBeans", List.of("org.apache.camel.management.mbean."),
            "IMDS simulator", List.of("io.github.scheduledeventsbridge.simulator.ImdsHandler"),
            // The queue client's JDK HttpClient only with bridge.approval.queue.url (or a managed identity).
            "approvals from a queue (the JDK HttpClient)", List.of("jdk.internal.net.http."),
            // Only Windows can turn the Event Log sink on.
            "Windows Event Log (JNA)", List.of("com.sun.jna.", "io.github.scheduledeventsbridge.eventlog."
                    + "WindowsEventLogWriter"));

    @TempDir
    Path work;

    @Test
    void oneWebhookWithManagementOnLoadsNoOtherSinkNorTheApprovalServerNorHawtio() throws Exception {
        Set<String> loaded = run(Map.of());
        for (var feature : FEATURES.entrySet()) {
            assertThat(matching(loaded, feature.getValue())).as("classes of %s", feature.getKey()).isEmpty();
        }
        assertThat(loaded).as("management is on: Jetty serves health and metrics")
                .contains("org.eclipse.jetty.server.Server");
    }

    @Test
    void theApprovalSecretBringsTheOneHttpStackWithoutVertxNorTheConsole() throws Exception {
        Set<String> loaded = run(Map.of("BRIDGE_APPROVAL_SECRET", "an-approval-secret-of-forty-characters-xyz",
                "BRIDGE_APPROVAL_PORT", "0", "BRIDGE_APPROVAL_HOST", "127.0.0.1",
                "BRIDGE_MANAGEMENT_ENABLED", "false"));
        assertThat(loaded).as("the approval port on Jetty").contains("org.eclipse.jetty.server.Server");
        for (String feature : List.of("Vert.x (on the classpath for camel-micrometer-prometheus, never started)",
                "Event Hubs (Azure SDK, Reactor, Proton-J)", "Hawtio console")) {
            assertThat(matching(loaded, FEATURES.get(feature))).as("classes of %s", feature).isEmpty();
        }
    }

    @Test
    void managementCredentialsBringCamelsMBeansForTheConsoleButNotTheConsoleItself() throws Exception {
        Set<String> loaded = run(Map.of("BRIDGE_MANAGEMENT_USERNAME", "operator",
                "BRIDGE_MANAGEMENT_PASSWORD", "a-management-password-of-40-characters-x"));
        assertThat(matching(loaded, FEATURES.get("Camel's JMX MBeans"))).isNotEmpty();
        assertThat(matching(loaded, FEATURES.get("Hawtio console"))).as("Hawtio starts when first opened").isEmpty();
    }

    private Set<String> run(Map<String, String> extraEnv) throws Exception {
        Path classLog = work.resolve("classes-" + extraEnv.size() + ".log");
        try (ScriptedImds imds = new ScriptedImds(); WebhookReceiver webhook = WebhookReceiver.start("s")) {
            imds.serve(Docs.document(2, Docs.scheduled(EVENT, "Freeze", "", "vm")));
            Map<String, String> env = new LinkedHashMap<>(AgentProcess.env(
                    "BRIDGE_IMDS_URL", imds.url(), "BRIDGE_IMDS_INSTANCE_URL", imds.instanceUrl(),
                    "BRIDGE_STATE_DIR", work.resolve("state-" + extraEnv.size()).toString(),
                    "BRIDGE_WEBHOOK_URLS", webhook.url(), "BRIDGE_WEBHOOK_SECRET", "s"));
            env.putAll(extraEnv);
            List<String> jvm = List.of(JvmOptions.argument(), "-Xlog:class+load=info:file=" + classLog);
            try (AgentProcess agent = AgentProcess.start("load-only-configured", jvm, env, Map.of(), work)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> !webhook.delivered().isEmpty());
                // Readiness settled too: the management server (when on) starts after the first poll.
                await().atMost(Duration.ofSeconds(30)).until(() -> agent.output().contains("Management server o"));
                assertThat(agent.isAlive()).isTrue();
            }
        }
        Set<String> loaded = new TreeSet<>();
        Matcher m = LOADED.matcher(Files.readString(classLog));
        while (m.find()) {
            loaded.add(m.group(1));
        }
        assertThat(loaded).as("the class-loading log was read").hasSizeGreaterThan(1_000);
        return loaded;
    }

    private static List<String> matching(Set<String> loaded, List<String> prefixes) {
        return loaded.stream().filter(c -> prefixes.stream().anyMatch(c::startsWith)).limit(5).toList();
    }
}
