package io.github.scheduledeventsbridge.testing;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The in-process agent set-up of a test class, in one place: before each test a fresh state directory, a scripted
 * IMDS and the receivers and ports the class asks for; after it, every agent the test started (closed or not), then
 * the peers, then the state directory. The class says once what it needs:
 *
 * <pre>
 * &#64;RegisterExtension
 * final AgentFixture fixture = AgentFixture.scriptedImds().webhook("s").approvalPort(SECRET);
 *
 * try (InProcessAgent agent = fixture.start()) {
 *     await().until(() -&gt; fixture.webhook().delivered().size() == 1);
 * }
 * </pre>
 * <p>
 * {@link #builder()} is the agent so configured, for a test that adds its own settings. The approval port is chosen
 * before the agent starts ({@link #approvalPort()}, the same across restarts in a test); the management and drain
 * ports are read from the running agent ({@link InProcessAgent#managementPort()}, {@link InProcessAgent#drainPort()}).
 */
public final class AgentFixture implements BeforeEachCallback, AfterEachCallback {

    /** The class's own settings and beans, applied to every agent after the peers' settings. */
    private final List<Consumer<InProcessAgent.Builder>> perAgent = new ArrayList<>();
    private boolean scripted = true;
    private String webhookSecret;
    private boolean webhookReceiver;
    private String approvalSecret;
    private boolean faultyDisk;
    private boolean greenMail;
    private boolean eventHub;

    private Path state;
    private ScriptedImds imds;
    private WebhookReceiver webhook;
    private FaultyFileSystem disk;
    private int approvalPort;
    private GreenMail smtp;
    private AmqpEventHubPeer eventHubPeer;
    private final Deque<AutoCloseable> open = new ArrayDeque<>();
    private InProcessAgent last;

    private AgentFixture() {
    }

    /** An agent polling a {@link ScriptedImds} (which serves no events until the test says otherwise). */
    public static AgentFixture scriptedImds() {
        return new AgentFixture();
    }

    /** An agent on its built-in IMDS simulator instead (nothing scripted). */
    public static AgentFixture simulator() {
        AgentFixture fixture = new AgentFixture().with("bridge.simulator.enabled", "true");
        fixture.scripted = false;
        return fixture;
    }

    // ---- what the class needs (set once, in the field initialiser) ----

    /** A {@link WebhookReceiver} that checks signatures with {@code secret}; the agent posts to it. */
    public AgentFixture webhook(String secret) {
        webhookReceiver = true;
        return webhookSecret(secret);
    }

    /** The secret the agent signs with when a test names its own receivers ({@link #postingTo}); no receiver of its own. */
    public AgentFixture webhookSecret(String secret) {
        webhookSecret = secret;
        return this;
    }

    /** The approval port on loopback, on a port from {@link FreePorts} kept for the whole test (restarts included). */
    public AgentFixture approvalPort(String secret) {
        approvalSecret = secret;
        return this;
    }

    /** The drain port on loopback, on a port the kernel chooses ({@link InProcessAgent#drainPort()}). */
    public AgentFixture drainPort() {
        return with("bridge.drain.port", "0").with("bridge.drain.host", "127.0.0.1");
    }

    /** State kept through a {@link FaultyFileSystem} over the default one, which injects the faults the test asks for. */
    public AgentFixture faultyDisk() {
        faultyDisk = true;
        return this;
    }

    /** A GreenMail SMTP server on loopback; the agent mails to it without STARTTLS, from and to the given addresses. */
    public AgentFixture greenMail(String from, String... to) {
        greenMail = true;
        return with("bridge.email.host", "127.0.0.1").with("bridge.email.from", from)
                .with("bridge.email.to", String.join(", ", to)).with("bridge.email.starttls", "false");
    }

    /** The Proton-J Event Hubs peer on loopback; the agent sends to its hub "hub". */
    public AgentFixture eventHubsPeer() {
        eventHub = true;
        return this;
    }

    /** A setting of every agent of the class. */
    public AgentFixture with(String key, String value) {
        perAgent.add(agent -> agent.with(key, value));
        return this;
    }

    /** A bean of every agent of the class, in the registry before the agent wires its own (e.g. "bootTime"). */
    public AgentFixture bind(String name, Object bean) {
        perAgent.add(agent -> agent.bind(name, bean));
        return this;
    }

    // ---- per test ----

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        state = Files.createTempDirectory("agent-state");
        if (scripted) {
            imds = opened(new ScriptedImds());
        }
        if (webhookReceiver) {
            webhook = opened(WebhookReceiver.start(webhookSecret));
        }
        if (faultyDisk) {
            disk = FaultyFileSystem.over(FileSystems.getDefault());
        }
        if (approvalSecret != null) {
            approvalPort = FreePorts.unused();
        }
        if (greenMail) {
            smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
            smtp.start();
            open.push(smtp::stop);
        }
        if (eventHub) {
            eventHubPeer = opened(AmqpEventHubPeer.start(0));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception first = null;
        while (!open.isEmpty()) {
            try {
                open.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        last = null;
        deleteQuietly(state);
        if (first != null) {
            throw first;
        }
    }

    /** Closed after the test, before everything opened earlier (agents, peers). */
    public <T extends AutoCloseable> T closeAfter(T resource) {
        open.push(resource);
        return resource;
    }

    private <T extends AutoCloseable> T opened(T resource) {
        return closeAfter(resource);
    }

    /** The agent as the class configured it, with the test's own settings to add; closed after the test. */
    public InProcessAgent.Builder builder() {
        return configure(faultyDisk ? InProcessAgent.builder(state, disk) : InProcessAgent.builder(state));
    }

    /** {@code base} (e.g. an agent on another platform) with the class's IMDS, receivers, ports and settings. */
    public InProcessAgent.Builder configure(InProcessAgent.Builder base) {
        if (imds != null) {
            base.imds(imds);
        }
        if (webhook != null) {
            base.with("bridge.webhook.urls", webhook.url()).with("bridge.webhook.secret", webhookSecret);
        }
        if (approvalSecret != null) {
            base.with("bridge.approval.secret", approvalSecret)
                    .with("bridge.approval.port", Integer.toString(approvalPort))
                    .with("bridge.approval.host", "127.0.0.1");
        }
        if (smtp != null) {
            base.with("bridge.email.port", Integer.toString(smtp.getSmtp().getPort()));
        }
        if (eventHubPeer != null) {
            base.with("bridge.eventhubs.connection-string", eventHubPeer.connectionString("hub"));
        }
        perAgent.forEach(customisation -> customisation.accept(base));
        return base.whenStarted(agent -> {
            open.push(agent);
            last = agent;
        });
    }

    /** The agent as the class configured it, posting to {@code urls} (signed with the class's webhook secret) instead. */
    public InProcessAgent.Builder postingTo(String... urls) {
        if (webhookSecret == null) {
            throw new IllegalStateException("no webhook secret configured");
        }
        return builder().with("bridge.webhook.urls", String.join(",", urls)).with("bridge.webhook.secret", webhookSecret);
    }

    /** Starts the agent as the class configured it, with {@code keyValues} (key, value, key, value...) added. */
    public InProcessAgent start(String... keyValues) throws Exception {
        InProcessAgent.Builder builder = builder();
        for (int i = 0; i < keyValues.length; i += 2) {
            builder.with(keyValues[i], keyValues[i + 1]);
        }
        return builder.start();
    }

    /** The agent this test started last. */
    public InProcessAgent agent() {
        if (last == null) {
            throw new IllegalStateException("no agent started in this test");
        }
        return last;
    }

    public Path state() { return state; }
    public ScriptedImds imds() { return imds; }
    public WebhookReceiver webhook() { return webhook; }
    public FaultyFileSystem disk() { return disk; }
    public int approvalPort() { return approvalPort; }

    /** A client of the approval port, signing with the class's approval secret. */
    public ApprovalClient approvals() {
        return new ApprovalClient(approvalPort, approvalSecret);
    }

    public GreenMail greenMail() { return smtp; }
    public AmqpEventHubPeer eventHub() { return eventHubPeer; }

    private static void deleteQuietly(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
