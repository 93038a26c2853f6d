package io.github.scheduledeventsbridge.testing;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ports tests bind later are out of the kernel's reach, never one it may hand to a connection meanwhile, and out
 * of the other test JVMs' reach, never one a test running at the same time in another fork may pick.
 */
class FreePortsTest {

    @Test
    void aPortOfThisForksSliceBelowTheEphemeralRangeThatCanBeBound() throws Exception {
        int first = FreePorts.unused();
        int second = FreePorts.unused();

        assertThat(first).isBetween(FreePorts.LOWEST, FreePorts.ephemeralLow() - 1);
        assertThat(FreePorts.range().contains(first)).as("%d in this fork's %s", first, FreePorts.range()).isTrue();
        assertThat(FreePorts.range().contains(second)).isTrue();
        assertThat(second).as("the next call another one").isNotEqualTo(first);
        try (ServerSocket bound = new ServerSocket(first)) {
            assertThat(bound.getLocalPort()).isEqualTo(first);
        }
    }

    @Test
    void thisForksSliceIsTheOneItsNumberNames() {
        if (System.getProperty("seb.test.forks") != null) {
            // In the build (pom.xml): each test JVM is told its number, or all would take the first slice.
            assertThat(System.getProperty("seb.test.fork")).as("seb.test.fork").matches("[1-9][0-9]*");
        }
        int fork = Integer.getInteger("seb.test.fork", 1);
        int forks = Integer.getInteger("seb.test.forks", 1);
        assertThat(fork).isBetween(1, forks);

        assertThat(FreePorts.range()).isEqualTo(FreePorts.Range.of(fork, forks, FreePorts.ephemeralLow()));
        assertThat(FreePorts.range().size()).as("wide enough not to come back to a port soon")
                .isGreaterThanOrEqualTo(FreePorts.SMALLEST_SLICE);
    }

    @Test
    void theForksSlicesAreDisjointAndTogetherTheWholeRange() {
        int forks = 6;
        int ephemeralLow = 32_768;
        int expectedLowest = FreePorts.LOWEST;
        for (int fork = 1; fork <= forks; fork++) {
            FreePorts.Range slice = FreePorts.Range.of(fork, forks, ephemeralLow);
            assertThat(slice.lowest()).as("slice %d starts where the one before ended", fork).isEqualTo(expectedLowest);
            assertThat(slice.size()).isBetween((ephemeralLow - FreePorts.LOWEST) / forks, (ephemeralLow - FreePorts.LOWEST) / forks + 1);
            expectedLowest = slice.highest() + 1;
        }
        assertThat(expectedLowest).as("the last slice ends below the ephemeral range").isEqualTo(ephemeralLow);
        assertThat(FreePorts.Range.of(1, 1, ephemeralLow)).isEqualTo(new FreePorts.Range(FreePorts.LOWEST, ephemeralLow - 1));
        assertThatThrownBy(() -> FreePorts.Range.of(7, 6, ephemeralLow)).isInstanceOf(IllegalArgumentException.class);
    }
}
