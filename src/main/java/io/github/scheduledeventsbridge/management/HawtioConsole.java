package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.ee10.webapp.WebAppContext;
import io.github.scheduledeventsbridge.http.HttpPort;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ClassMatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The Hawtio 4 WAR packaged in the jar ({@code hawtio/hawtio.war}), unpacked by Jetty and started on the first request
 * to {@code /hawtio}: most agents never open the console, and an idle one should not pay for it.
 *
 * <p>Authentication is the management port's HTTP Basic in front of it, so Hawtio's own login is turned off
 * ({@code hawtio.authenticationEnabled=false}), as is its proxy to other Jolokia agents
 * ({@code hawtio.disableProxy=true}); both can be overridden with -D.
 *
 * <p>The WAR's Jolokia gets an access policy ({@code policyLocation}, set through an override descriptor):
 * {@code hawtio/jolokia-read-only.xml} unless {@code bridge.management.read-only=false}, then
 * {@code hawtio/jolokia-full-access.xml}. See those files for what each allows.
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
        setDefault("hawtio.authenticationEnabled", "false");
        setDefault("hawtio.disableProxy", "true");
        Path dir = Files.createTempDirectory("seb-hawtio-");
        try {
            Path war = dir.resolve("hawtio.war");
            copy(WAR_RESOURCE, war);
            WebAppContext context = new WebAppContext();
            context.addOverrideDescriptor(jolokiaPolicy(dir).toString());
            context.setContextPath("/hawtio");
            context.setWar(war.toString()); // Jetty unpacks it into the temporary directory below
            context.setParentLoaderPriority(false);
            // One logging set-up for the whole agent: the WAR's SLF4J is the agent's, and its Log4j (which nothing
            // in the WAR calls directly) never loads, as the agent has none.
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

    /**
     * Copies the policy next to the WAR and writes the override descriptor that points the WAR's
     * {@code jolokia-agent} servlet at it. Returns the descriptor.
     */
    private Path jolokiaPolicy(Path dir) throws IOException {
        Path policy = dir.resolve("jolokia-access.xml");
        copy(readOnly ? READ_ONLY_POLICY : FULL_ACCESS_POLICY, policy);
        Path descriptor = dir.resolve("override-web.xml");
        Files.writeString(descriptor, """
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                  <servlet>
                    <servlet-name>jolokia-agent</servlet-name>
                    <init-param>
                      <param-name>policyLocation</param-name>
                      <param-value>%s</param-value>
                    </init-param>
                  </servlet>
                </web-app>
                """.formatted(policy.toUri()), StandardCharsets.UTF_8);
        LOG.info("Hawtio's Jolokia is {}", readOnly ? "read-only (bridge.management.read-only=true)"
                : "unrestricted: writes and operations allowed (bridge.management.read-only=false)");
        return descriptor;
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void copy(String resource, Path target) throws IOException {
        try (InputStream in = HawtioConsole.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException(resource + " is not on the classpath (build with mvn package)");
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.toString());
        }
    }
}
