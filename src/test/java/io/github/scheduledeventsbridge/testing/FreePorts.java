package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A port nothing listens on now, for a test that binds it later or needs one that refuses. It is taken below the
 * kernel's ephemeral range: a port the kernel handed out (ServerSocket(0)) and that was closed again can be handed to
 * the next client connection or bind(0) of any test before the agent binds it ("Address already in use"), or make
 * a port meant to refuse answer. The build runs several test JVMs at once (pom.xml: test.forks): each takes its ports
 * from its own slice of that range (system properties seb.test.fork, 1..seb.test.forks), so two never pick the same.
 */
public final class FreePorts {

    static final int LOWEST = 20_000;
    /** A slice smaller than this would hand the same ports out again too soon: the kernel chooses instead. */
    static final int SMALLEST_SLICE = 500;

    private static final Range RANGE = Range.of(fork(), forks(), ephemeralLow());
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(10_000));

    private FreePorts() {
    }

    /** The ports this JVM takes from: its fork's slice of [20000, the ephemeral range). */
    public static Range range() {
        return RANGE;
    }

    public static int unused() {
        if (RANGE.size() < SMALLEST_SLICE) {
            return kernelChosen();
        }
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = RANGE.lowest() + Math.floorMod(NEXT.getAndIncrement(), RANGE.size());
            try (ServerSocket probe = new ServerSocket(port)) {
                return probe.getLocalPort();
            } catch (IOException inUse) {
                // next one
            }
        }
        return kernelChosen();
    }

    /** Ports lowest..highest, both included. */
    public record Range(int lowest, int highest) {

        /** Slice {@code fork} (1..forks) of [20000, ephemeralLow): equal, disjoint, together the whole range. */
        static Range of(int fork, int forks, int ephemeralLow) {
            if (forks < 1 || fork < 1 || fork > forks) {
                throw new IllegalArgumentException("fork " + fork + " of " + forks);
            }
            long span = Math.max(0, ephemeralLow - LOWEST);
            return new Range((int) (LOWEST + span * (fork - 1) / forks), (int) (LOWEST + span * fork / forks - 1));
        }

        public int size() {
            return highest - lowest + 1;
        }

        public boolean contains(int port) {
            return port >= lowest && port <= highest;
        }
    }

    /** Surefire's fork number (1..forks); 1 in an IDE or a single JVM. */
    private static int fork() {
        return Integer.getInteger("seb.test.fork", 1);
    }

    private static int forks() {
        return Integer.getInteger("seb.test.forks", 1);
    }

    /** Linux's lower end of the ephemeral range; the IANA one (49152) elsewhere. */
    static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException notLinux) {
            return 49_152;
        }
    }

    private static int kernelChosen() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
