package io.github.scheduledeventsbridge.management;

import io.github.scheduledeventsbridge.http.HttpPort;
import io.github.scheduledeventsbridge.http.PortLimits;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.eclipse.jetty.util.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;

/**
 * The operators' HTTP port: {@code /observe/health} (with {@code /live} and {@code /ready}), {@code /metrics} and the
 * Hawtio console at {@code /hawtio}, showing Camel's health checks, Prometheus registry and MBeans. Without
 * credentials it listens on 127.0.0.1 only and the console is off (docs/security.md). A port already in use is
 * logged as an error and the agent runs on: delivering events matters more than observing them.
 */
public final class ManagementServer extends ServiceSupport {

    /** The server is bound in the Camel registry under this name (its {@link #port()} is the one it got). */
    public static final String BEAN_NAME = "managementServer";

    private static final Logger LOG = LoggerFactory.getLogger(ManagementServer.class);

    private final CamelContext context;
    private final ManagementSettings settings;
    private final String host;
    private volatile HttpPort server;
    private HawtioConsole console;

    private ManagementServer(CamelContext context, ManagementSettings settings, String host) {
        this.context = context;
        this.settings = settings;
        this.host = host;
    }

    /** Binds the server in the registry before the context starts; without a console, Camel keeps no MBeans. */
    public static void install(CamelContext context, ManagementSettings settings) {
        if (!settings.enabled() || !settings.credentials()) {
            // Hawtio is their only reader: 5 to 16 MB saved (BENCHMARKS.md, "What each design choice bought").
            context.disableJMX();
        }
        if (!settings.enabled()) {
            LOG.info("Management server off (bridge.management.enabled=false), and Camel's JMX MBeans with it");
            return;
        }
        String host = settings.host();
        if (!settings.credentials() && !isLoopback(host)) {
            LOG.warn("bridge.management.host={} ignored: without bridge.management.username and bridge.management.password "
                    + "the management server listens on 127.0.0.1 only", host);
            host = "127.0.0.1";
        } else if (settings.credentials() && !isLoopback(host)) {
            LOG.warn("The management server listens on {} with HTTP Basic authentication over plain HTTP: "
                    + "reach it through a TLS proxy or an SSH tunnel", host);
        }
        if (settings.credentials() && !settings.readOnly()) {
            LOG.warn("bridge.management.read-only=false: the Hawtio console can read the agent's secrets, call any MBean "
                    + "and send messages to any endpoint (approvals without the approval secret); use it for debugging only");
        }
        context.getRegistry().bind(BEAN_NAME, new ManagementServer(context, settings, host));
    }

    /** Called once the poll has started: Jetty's ~0.4 s start would otherwise delay the first IMDS request. */
    public static void startIfInstalled(CamelContext context) {
        ManagementServer server = context.getRegistry().lookupByNameAndType(BEAN_NAME, ManagementServer.class);
        if (server != null) {
            try {
                context.addService(server, true, true);
            } catch (Exception e) {
                throw new IllegalStateException("Cannot start the management server", e);
            }
        }
    }

    /** The port it listens on, or -1 when it does not listen. */
    public int port() {
        HttpPort http = server;
        return http == null ? -1 : http.port();
    }

    public String host() {
        return host;
    }

    @Override
    protected void doStart() {
        HawtioConsole hawtio = settings.credentials() ? new HawtioConsole(settings.readOnly()) : null;
        // A megabyte is far more than Jolokia posts; 10 s to send a whole request, or to idle between two.
        HttpPort http = new HttpPort("management", host, settings.port(),
                PortLimits.of(settings.maxConnections(), 1024 * 1024, Duration.ofSeconds(10)), 16,
                new ManagementHandler(context, settings.username(), settings.password(), hawtio));
        try {
            http.start();
        } catch (RuntimeException e) {
            LOG.error("The management server cannot listen on {}:{} ({}): health, metrics and the Hawtio console are "
                    + "unavailable; the agent runs on without them", host, settings.port(), rootMessage(e));
            return;
        }
        server = http;
        console = hawtio;
        LOG.info("Management server on http://{}:{}: /observe/health/live, /observe/health/ready, /observe/health, "
                        + "/metrics, {}", HostPort.normalizeHost(host), http.port(),
                hawtio == null ? "no Hawtio console (no bridge.management.username/password)"
                        : "Hawtio console at /hawtio (user " + settings.username() + ")");
    }

    @Override
    protected void doStop() {
        HttpPort http = server;
        server = null;
        if (http != null) {
            http.stop();
        }
        if (console != null) {
            console.close();
            console = null;
        }
    }

    static boolean isLoopback(String host) {
        try {
            return Arrays.stream(InetAddress.getAllByName(host)).allMatch(InetAddress::isLoopbackAddress);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /** For tests and logs: where it listens. */
    public InetSocketAddress address() {
        int port = port();
        return port < 0 ? null : new InetSocketAddress(host, port);
    }
}
