package io.github.scheduledeventsbridge;

import io.github.scheduledeventsbridge.json.Json;
import io.github.scheduledeventsbridge.config.BridgeVersion;
import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.ConfigFileEncoding;
import io.github.scheduledeventsbridge.config.ConfigKeys;
import io.github.scheduledeventsbridge.eventlog.AgentLifeLog;
import io.github.scheduledeventsbridge.eventlog.LifeEvent;
import io.github.scheduledeventsbridge.windows.install.JavaRuntimes;
import io.github.scheduledeventsbridge.logging.BridgeLogging;
import io.github.scheduledeventsbridge.logging.LineFormatter;
import io.github.scheduledeventsbridge.logging.LogFileSettings;
import io.github.scheduledeventsbridge.platform.Platform;
import org.apache.camel.CamelContext;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.DefaultRoutesCollector;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.Resource;
import org.apache.camel.util.ObjectHelper;
import org.apache.hc.core5.ssl.SSLContexts;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static java.util.stream.Collectors.joining;

/**
 * Entry point: Camel Main with the configuration sources in docs/configuration.md's order. Every refusal is one line
 * and exit code 2, which systemd does not restart.
 */
public final class BridgeApplication {

    static final int BAD_CONFIGURATION = 2;

    private BridgeApplication() {
    }

    public static void main(String[] args) throws Exception {
        BridgeLogging.configure();
        if (args.length == 0) {
            warmUp();
        }
        System.exit(run(args));
    }

    /**
     * Work the first poll waits for, begun on a second thread to overlap with Camel reading its configuration
     * (BENCHMARKS.md, "What each design choice bought"): the TLS context Camel's HTTP component builds even for a plain
     * http IMDS, and the platform MBean server. Both are built once and safe to ask for from two threads.
     */
    private static void warmUp() {
        Thread thread = new Thread(() -> {
            try {
                SSLContexts.createDefault();
                ManagementFactory.getPlatformMBeanServer();
            } catch (RuntimeException | Error ignored) {
                // Only a head start: the same call on the main thread reports it.
            }
        }, "startup-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    public static int run(String... args) throws Exception {
        return args.length > 0 ? command(args) : runAgent(newMain());
    }

    /**
     * A Windows service host (procrun, {@code --StartMode=jvm --StartMethod=start}): runs the agent as {@link #main}
     * does and returns only once it has stopped, as procrun expects; a refusal exits with its code (2).
     */
    public static void start(String[] args) throws Exception {
        BridgeLogging.configure();
        int code = ServiceHost.run(BridgeApplication::runAgent);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * The service host's stop ({@code --StopMethod=stop}): the same graceful stop as SIGTERM; returns once the agent
     * has stopped, or after {@code args[0]} seconds (default 60).
     */
    public static void stop(String[] args) throws InterruptedException {
        ServiceHost.stop(Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0].strip()) : 60));
    }

    static int runAgent(Main main) throws Exception {
        try {
            checkEarlySettings();
            main.bind(BridgeConfiguration.LOG_DESTINATION_BEAN, (LogDestination) BridgeApplication::logTo);
            main.addMainListener(new MainListenerSupport() {
                @Override
                public void afterStart(BaseMainSupport started) {
                    AgentLifeLog.report(LifeEvent.STARTED, startedLine(Platform.current()));
                    // After start, so that it reaches the agent's own log file and the Application log.
                    JavaRuntimes.newerThanRunning().ifPresent(line -> {
                        // Looked up here, not in a static field: logging is set up by main, before any logger.
                        org.slf4j.LoggerFactory.getLogger(BridgeApplication.class).warn(line);
                        AgentLifeLog.report(LifeEvent.JAVA_OUTDATED, line);
                    });
                }
            });
            int code = main.run(new String[0]);
            AgentLifeLog.report(LifeEvent.STOPPED, "scheduled-events-bridge " + BridgeVersion.current() + " stopped");
            return code;
        } catch (Exception e) {
            BadConfigurationException bad = ObjectHelper.getException(BadConfigurationException.class, e);
            if (bad == null) {
                throw e;
            }
            System.err.println(refusalLine(bad));
            AgentLifeLog.report(LifeEvent.CONFIGURATION_REFUSED, bad.getMessage() + "\r\n\r\nThe agent stopped; "
                    + "fix the setting (on Windows the service is started again every minute until then).");
            return BAD_CONFIGURATION;
        } finally {
            // Camel's JVM shutdown hook says "triggered by SIGTERM" at any exit while Main still counts as running,
            // the System.exit after a refusal included: marked as shut down, the hook stays silent. After a real
            // signal the hook has already run and this does nothing.
            main.getShutdownStrategy().shutdown();
        }
    }

    /** The Event Log's "started" entry: the version and the settings files read, which an administrator edits. */
    static String startedLine(Platform platform) {
        List<String> files = new ArrayList<>();
        String configFile = early(ConfigKeys.CONFIG_FILE);
        if (configFile != null && !configFile.isBlank()) {
            files.add(Path.of(configFile).toAbsolutePath().toString());
        }
        optionalConfigFiles(platform).stream().map(file -> Path.of(file).toAbsolutePath())
                .filter(Files::isRegularFile).map(Path::toString).filter(file -> !files.contains(file)).forEach(files::add);
        return "scheduled-events-bridge " + BridgeVersion.current() + " (commit " + BridgeVersion.commit() + ") started; "
                + "settings: " + (files.isEmpty() ? "no file" : String.join(", ", files))
                + ", then -D options and BRIDGE_* environment variables";
    }

    /** What is done with the log settings once they are read (tests running the agent in-process keep theirs). */
    @FunctionalInterface
    interface LogDestination {
        void use(LogFileSettings settings);
    }

    /** The agent's own rolled files (Windows' default) from now on, or standard output as before. */
    private static void logTo(LogFileSettings settings) {
        try {
            BridgeLogging.logTo(settings, Logger.getLogger(""));
        } catch (IOException e) {
            throw new BadConfigurationException("bridge.log.dir", settings.dir().orElseThrow()
                    + " cannot be written (" + e.getMessage() + ")");
        }
    }

    private static int command(String... args) {
        if (!List.of("--version", "--help", "-h").contains(args[0])) {
            System.err.println("Unknown argument " + args[0] + "; use --help or --version");
            return BAD_CONFIGURATION;
        }
        System.out.println("scheduled-events-bridge " + BridgeVersion.current());
        if (!args[0].equals("--version")) {
            System.out.print("\nUsage: java [-Dkey=value ...] -jar scheduled-events-bridge.jar [--help | --version]\n\n"
                    + "Every key can be set as -Dkey=value, as an environment variable (bridge.imds.url ->\n"
                    + "BRIDGE_IMDS_URL), in the file named by -Dbridge.config, or in ./config/application.properties\n"
                    + "(highest precedence first). Keys and their defaults:\n\n" + ConfigKeys.packaged().help());
        }
        return 0;
    }

    /** What is read before Camel starts is checked before it starts: a file read wrong (UTF-16, a BOM) is refused. */
    private static void checkEarlySettings() {
        String configFile = early(ConfigKeys.CONFIG_FILE);
        if (configFile != null && !configFile.isBlank()) {
            Path file = Path.of(configFile).toAbsolutePath();
            String problem = Files.isRegularFile(file) && Files.isReadable(file) ? ConfigFileEncoding.problem(file)
                    : "is not a readable file";
            if (problem != null) {
                throw earlyRefusal(ConfigKeys.CONFIG_FILE, file + " " + problem);
            }
        }
        for (String optional : optionalConfigFiles(Platform.current())) {
            Path file = Path.of(optional).toAbsolutePath();
            String problem = Files.isRegularFile(file) ? ConfigFileEncoding.problem(file) : null;
            if (problem != null) {
                throw new BadConfigurationException(file.toString(), problem);
            }
        }
        String logFormat = early(ConfigKeys.LOG_FORMAT);
        if (logFormat != null && !List.of("text", "json").contains(logFormat)) {
            throw earlyRefusal(ConfigKeys.LOG_FORMAT, "'" + logFormat + "' is neither text nor json");
        }
    }

    private static String early(String key) {
        String value = System.getProperty(key);
        return value != null ? value : System.getenv(ConfigKeys.environmentName(key));
    }

    private static BadConfigurationException earlyRefusal(String key, String reason) {
        return new BadConfigurationException(key, reason).from(System.getProperty(key) != null ? "-D" + key
                : "environment variable " + ConfigKeys.environmentName(key));
    }

    /** One line; in JSON log mode one JSON object with the same fields as the log's. */
    static String refusalLine(BadConfigurationException bad) {
        return !LineFormatter.jsonConfigured() ? bad.getMessage() : Json.MAPPER.createObjectNode()
                .put("@timestamp", Instant.now().toString()).put("log.level", "ERROR").put("message", bad.getMessage())
                .put("log.logger", "io.github.scheduledeventsbridge.configuration").put("bridge.config.key", bad.key())
                .put("bridge.config.source", bad.source()).put("bridge.config.reason", bad.reason()).toString();
    }

    /** The agent as the jar runs it; tests start the very same thing in-process. */
    public static Main newMain() {
        Main main = new Main();
        BridgeConfiguration.all().forEach(main.configure()::addConfiguration);
        main.setRoutesCollector(routeFiles());
        main.setPropertyPlaceholderLocations(locations(Platform.current()));
        return main;
    }

    /** Camel's own, given the locations trimmed and without empty ones: it would take " classpath:…" for a scheme. */
    static DefaultRoutesCollector routeFiles() {
        return new DefaultRoutesCollector() {
            @Override
            public Collection<Resource> findRouteResourcesFromDirectory(CamelContext context, String exclude,
                                                                         String include) {
                return super.findRouteResourcesFromDirectory(context, exclude, include == null ? null : Stream.of(
                        include.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(joining(",")));
            }
        };
    }

    /** Camel lets the first location that defines a key win, so the most specific file comes first. */
    static String locations(Platform platform) {
        String extra = early(ConfigKeys.CONFIG_FILE);
        List<String> locations = new ArrayList<>(extra == null || extra.isBlank() ? List.of() : List.of("file:" + extra));
        optionalConfigFiles(platform).forEach(file -> locations.add("file:" + file + ";optional=true"));
        locations.add("classpath:application.properties;optional=true");
        return String.join(",", locations);
    }

    /** Read when they exist: on Windows the one under %ProgramData% first, then ./config/application.properties. */
    static List<String> optionalConfigFiles(Platform platform) {
        // Camel reads locations as URLs: forward slashes, which Windows takes as well.
        return Stream.concat(platform.defaultConfigFile().map(file -> file.replace('\\', '/')).stream(),
                Stream.of("config/application.properties")).toList();
    }
}
