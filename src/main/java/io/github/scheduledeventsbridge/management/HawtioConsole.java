package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.ee10.webapp.WebAppContext;
import io.github.scheduledeventsbridge.http.HttpPort;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ClassMatcher;
import org.eclipse.jetty.util.IO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The Hawtio 4 WAR packaged in the jar, unpacked and started on the first request to {@code /hawtio}: an idle agent
 * should not pay for a console most never open. Hawtio's own login and proxy are off (the port's HTTP Basic is in
 * front; -D overrides); its Jolokia gets the read-only or the full-access policy (see those files).
 */
final class HawtioConsole {

    static final String WAR_RESOURCE = "/hawtio/hawtio.war";
    static final String READ_ONLY_POLICY = "/hawtio/jolokia-read-only.xml";
    static final String FULL_ACCESS_POLICY = "/hawtio/jolokia-full-access.xml";
    private static final Logger LOG = LoggerFactory.getLogger(HawtioConsole.class);

    private final boolean readOnly;
    private WebAppContext webapp;
    private Path directory;
    private boolean closed;

    HawtioConsole(boolean readOnly) {
        this.readOnly = readOnly;
    }

    boolean handle(Request request, Response response, Callback callback) throws Exception {
        WebAppContext started;
        try {
            started = started(request.getConnectionMetaData().getConnector().getServer());
        } catch (Exception e) {
            LOG.error("The Hawtio console cannot start", e);
            HttpPort.send(response, callback, HttpStatus.SERVICE_UNAVAILABLE_503, "text/plain; charset=utf-8",
                    "The Hawtio console cannot start; see the agent's log.\n");
            return true;
        }
        return started.handle(request, response, callback);
    }

    private synchronized WebAppContext started(Server server) throws Exception {
        if (closed) {
            throw new IllegalStateException("the management server is stopping");
        }
        if (webapp != null) {
            return webapp;
        }
        long start = System.nanoTime();
        System.getProperties().putIfAbsent("hawtio.authenticationEnabled", "false");
        System.getProperties().putIfAbsent("hawtio.disableProxy", "true");
        Path dir = Files.createTempDirectory("seb-hawtio-");
        try {
            Path war = dir.resolve("hawtio.war");
            try (InputStream in = Objects.requireNonNull(HawtioConsole.class.getResourceAsStream(WAR_RESOURCE),
                    WAR_RESOURCE + " is not on the classpath (build with mvn package)")) {
                Files.copy(in, war);
            }
            WebAppContext context = new WebAppContext();
            // A context parameter outranks the servlet's own; a policy Jolokia cannot find would allow everything.
            String policy = readOnly ? READ_ONLY_POLICY : FULL_ACCESS_POLICY;
            context.setInitParameter("policyLocation", Objects.requireNonNull(HawtioConsole.class.getResource(policy),
                    policy + " is not on the classpath").toString());
            LOG.info("Hawtio's Jolokia is {}", readOnly ? "read-only (bridge.management.read-only=true)"
                    : "unrestricted: writes and operations allowed (bridge.management.read-only=false)");
            context.setContextPath("/hawtio");
            context.setWar(war.toString()); // Jetty unpacks it into the temporary directory below
            context.setParentLoaderPriority(false);
            // One logging set-up: the WAR's SLF4J is the agent's; its Log4j (never called directly) never loads.
            context.addProtectedClassMatcher(new ClassMatcher("org.slf4j.", "org.apache.logging.log4j."));
            context.setThrowUnavailableOnStartupException(true);
            context.setTempDirectory(dir.resolve(".jetty").toFile());
            context.setServer(server);
            context.start();
            webapp = context;
            directory = dir;
            LOG.info("Hawtio console started in {} ms", (System.nanoTime() - start) / 1_000_000);
            return context;
        } catch (Exception e) {
            delete(dir);
            throw e;
        }
    }

    synchronized void close() {
        closed = true;
        if (webapp != null) {
            try {
                webapp.stop();
            } catch (Exception e) {
                LOG.warn("Stopping the Hawtio console: {}", e.toString());
            }
            webapp = null;
        }
        if (directory != null) {
            delete(directory);
            directory = null;
        }
    }

    private static void delete(Path dir) {
        if (!IO.delete(dir)) {
            LOG.warn("Could not delete {}", dir);
        }
    }
}
