package io.github.scheduledeventsbridge.testing;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The ports tests bind later are out of the kernel's reach: never one it may hand to a connection meanwhile. */
class FreePortsTest {

    @Test
    void aPortBelowTheEphemeralRangeThatCanBeBound() throws Exception {
        int ephemeralLow = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                .split("\\s+")[0]);
        int first = FreePorts.unused();
        int second = FreePorts.unused();

        assertThat(first).isBetween(20_000, ephemeralLow - 1);
        assertThat(second).as("the next call another one").isNotEqualTo(first).isLessThan(ephemeralLow);
        try (ServerSocket bound = new ServerSocket(first)) {
            assertThat(bound.getLocalPort()).isEqualTo(first);
        }
    }
}
