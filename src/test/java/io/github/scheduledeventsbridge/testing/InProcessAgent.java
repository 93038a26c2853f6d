package io.github.scheduledeventsbridge.testing;

import io.github.scheduledeventsbridge.BridgeApplication;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** The agent exactly as the jar runs it (same Main, routes and defaults), started inside the test JVM. */
public final class InProcessAgent implements AutoCloseable {

    private final Main main;
    private final AtomicBoolean closed = new AtomicBoolean();

    private InProcessAgent(Main main) {
        this.main = main;
    }

    public static Builder builder(Path stateDir) {
        return new Builder().with("bridge.state.dir", stateDir.toString());
    }

    /**
     * On another platform (e.g. Windows on an in-memory file system with Windows' path rules): its environment instead
     * of this JVM's, its file system, and its default state directory unless the test sets one.
     */
    public static Builder on(io.github.scheduledeventsbridge.platform.Platform platform) {
        return new Builder().bind("platform", platform);
    }

    /** State kept in {@code stateDir} through {@code disk}, which injects the faults the test asks for. */
    public static Builder builder(Path stateDir, FaultyFileSystem disk) {
        return on(io.github.scheduledeventsbridge.platform.Platform.of(
                io.github.scheduledeventsbridge.platform.OperatingSystem.current(), disk, System.getenv()))
                .with("bridge.state.dir", stateDir.toString());
    }

    public CamelContext context() {
        return main.getCamelContext();
    }

    public <T> T bean(String name, Class<T> type) {
        return context().getRegistry().lookupByNameAndType(name, type);
    }

    /** The management port's bound port (bridge.management.port is 0, any free port, unless the test sets one). */
    public int managementPort() {
        return bean(io.github.scheduledeventsbridge.management.ManagementServer.BEAN_NAME,
                io.github.scheduledeventsbridge.management.ManagementServer.class).port();
    }

    /** The drain port's bound port. */
    public int drainPort() {
        return bean("drainSignal", io.github.scheduledeventsbridge.action.DrainSignal.class).port();
    }

    /** Stops the agent; a second call (the test's try-with-resources, then its fixture) does nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            main.stop();
        }
    }

    public static final class Builder {
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, Object> beans = new LinkedHashMap<>();
        private final List<Consumer<InProcessAgent>> whenStarted = new ArrayList<>();

        private Builder() {
            properties.put("bridge.imds.poll-interval", "200");
            // Any free port: tests must not depend on 8080 being free.
            properties.put("bridge.management.port", "0");
        }

        public Builder with(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** A bean in the registry before the agent wires its own (e.g. "bootTime"). */
        public Builder bind(String name, Object bean) {
            beans.put(name, bean);
            return this;
        }

        public Builder imds(ScriptedImds imds) {
            return with("bridge.imds.url", imds.url()).with("bridge.imds.instance-url", imds.instanceUrl());
        }

        /** The settings as they stand, for a host that passes them on its own way (e.g. as -D options). */
        public Map<String, String> settings() {
            return Map.copyOf(properties);
        }

        /** Told of the agent once it started (a fixture that closes it after the test). */
        public Builder whenStarted(Consumer<InProcessAgent> listener) {
            whenStarted.add(listener);
            return this;
        }

        public InProcessAgent start() throws Exception {
            Main main = BridgeApplication.newMain();
            properties.forEach(main::addOverrideProperty);
            beans.forEach(main::bind);
            main.start();
            InProcessAgent agent = new InProcessAgent(main);
            whenStarted.forEach(listener -> listener.accept(agent));
            return agent;
        }
    }
}
