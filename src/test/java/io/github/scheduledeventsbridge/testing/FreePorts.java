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
 * a port meant to refuse answer.
 */
public final class FreePorts {

    private static final int LOWEST = 20_000;
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(10_000));

    private FreePorts() {
    }

    public static int unused() {
        int highest = ephemeralLow() - 1;
        int span = highest - LOWEST + 1;
        if (span < 1_000) {
            return kernelChosen();
        }
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = LOWEST + Math.floorMod(NEXT.getAndIncrement(), span);
            try (ServerSocket probe = new ServerSocket(port)) {
                return probe.getLocalPort();
            } catch (IOException inUse) {
                // next one
            }
        }
        return kernelChosen();
    }

    /** Linux's lower end of the ephemeral range; the IANA one (49152) elsewhere. */
    private static int ephemeralLow() {
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
