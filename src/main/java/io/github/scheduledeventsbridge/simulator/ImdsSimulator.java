package io.github.scheduledeventsbridge.simulator;

import io.github.scheduledeventsbridge.http.HttpPort;
import io.github.scheduledeventsbridge.http.PortLimits;
import org.eclipse.jetty.util.HostPort;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A local stand-in for the Azure Instance Metadata Service (IMDS) that plays scripted Scheduled Events scenarios in
 * accelerated time, so the bridge can be run and tested without an Azure VM: {@link ImdsHandler} answers as IMDS
 * does, {@link SimulatedEvents} advances the simulated world on each request.
 *
 * <pre>{@code
 * try (ImdsSimulator imds = new ImdsSimulator(ImdsSimulator.Options.defaults().withSpeed(600)).start()) {
 *     URI uri = imds.scheduledEventsUri();   // add ?api-version=2020-07-01 and header Metadata: true
 * }
 * }</pre>
 */
public final class ImdsSimulator implements AutoCloseable {

    /** IMDS's own limits are unknown; the agent's port policy, with room for a test's parallel clients. */
    private static final PortLimits LIMITS = PortLimits.of(64, ImdsHandler.MAX_BODY_BYTES, Duration.ofSeconds(10));

    private final Options options;
    private Running running;
    private boolean closed;

    public ImdsSimulator(Options options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    /** Binds the server and starts the simulated clock (scenario timings count from now, or from the first request); once. */
    public synchronized ImdsSimulator start() throws IOException {
        if (running != null || closed) {
            throw new IllegalStateException("ImdsSimulator can be started only once");
        }
        ImdsHandler handler = new ImdsHandler(new SimulatedEvents(options.clock(), options.speed(), options.vmName(),
                options.scenarios().stream().map(Scenario::named).toList(), options.loop(), options.fromFirstRequest()),
                options.vmName(),
                new SimulatedTokens(options.clock(), options.vmName()));
        HttpPort server = new HttpPort("imds-simulator", options.host(), options.port(), LIMITS, 2, handler);
        try {
            server.start();
        } catch (RuntimeException e) {
            throw new IOException("cannot listen on " + options.host() + ":" + options.port(), e.getCause() == null ? e : e.getCause());
        }
        running = new Running(server, handler);
        return this;
    }

    /** Stops the server at once; idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (running != null) {
            running.server().stop();
            running = null;
        }
    }

    /** The bound port, useful when {@link Options#port()} is 0. */
    public int port() {
        return running().server().port();
    }

    /** {@code http://host:port/metadata/scheduledevents}, without the api-version query. */
    public URI scheduledEventsUri() {
        return uri(ImdsHandler.SCHEDULED_EVENTS_PATH);
    }

    /** {@code http://host:port/metadata/instance/compute}, without the api-version query. */
    public URI instanceComputeUri() {
        return uri(ImdsHandler.COMPUTE_PATH);
    }

    /** {@code http://host:port/metadata/identity/oauth2/token}: the managed identity's tokens, without a query. */
    public URI identityTokenUri() {
        return uri(ImdsHandler.IDENTITY_PATH);
    }

    /** How many tokens the identity endpoint handed out. */
    public long tokensServed() {
        return running().handler().tokens.served.get();
    }

    /** Makes the identity endpoint answer every request with {@code status} (400: no such identity); 0 ends it. */
    public void failTokens(int status) {
        running().handler().tokens.failWith(status);
    }

    /** The DocumentIncarnation a GET would serve now. */
    public long incarnation() {
        return running().handler().events.incarnation();
    }

    /** The Scheduled Events document exactly as a GET would serve it now. */
    public String documentJson() {
        return running().handler().events.document();
    }

    /** How many GETs were answered 304 Not Modified (their If-None-Match named the current document's ETag). */
    public long notModifiedServed() {
        return running().handler().notModifiedServed.get();
    }

    private URI uri(String path) {
        return URI.create("http://" + HostPort.normalizeHost(options.host()) + ":" + port() + path);
    }

    private synchronized Running running() {
        if (running == null) {
            throw new IllegalStateException("ImdsSimulator is not running");
        }
        return running;
    }

    private record Running(HttpPort server, ImdsHandler handler) {
    }

    /**
     * Simulator settings, by {@link #defaults()}: 127.0.0.1, port 0 (an ephemeral one), speed 60 simulated seconds per
     * real second (a 15-minute notice lasts 15 s), VM sim-vm-0, the {@link #DEFAULT_SCENARIOS} (and {@code other-vm})
     * played 20 simulated minutes apart in this order, looping with fresh EventIds, the system clock in UTC.
     */
    public record Options(String host, int port, double speed, String vmName, List<String> scenarios, boolean loop,
                          Clock clock, boolean fromFirstRequest) {

        /** All scenarios except {@code other-vm}, in playing order. */
        public static final List<String> DEFAULT_SCENARIOS = Scenario.DEFAULTS.stream().map(Scenario::name).toList();

        public Options {
            Objects.requireNonNull(clock, "clock");
            scenarios = List.copyOf(scenarios);
            if (host.isBlank() || vmName.isBlank()) { // and null is refused by these very calls
                throw new IllegalArgumentException("host and vmName must not be blank");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            if (!(speed > 0) || Double.isInfinite(speed)) {
                throw new IllegalArgumentException("speed must be a positive finite number, was " + speed);
            }
            if (scenarios.isEmpty()) {
                throw new IllegalArgumentException("at least one scenario is required");
            }
            scenarios.forEach(Scenario::named); // fail fast on typos rather than at start()
        }

        public static Options defaults() {
            return new Options("127.0.0.1", 0, 60, "sim-vm-0", DEFAULT_SCENARIOS, true, Clock.systemUTC(), false);
        }

        public Options withPort(int port) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        public Options withSpeed(double speed) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        public Options withVmName(String vmName) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        public Options withScenarios(List<String> scenarios) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        public Options withLoop(boolean loop) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        public Options withClock(Clock clock) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }

        /** The scenarios' time counts from the first request rather than from start(): for an agent slow to start. */
        public Options withTimeFromFirstRequest(boolean fromFirstRequest) {
            return new Options(host, port, speed, vmName, scenarios, loop, clock, fromFirstRequest);
        }
    }
}
