package io.github.scheduledeventsbridge.storage;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StorageHealthTest {

    @Test
    @DisplayName("a failed write is the problem until a write of the same kind succeeds")
    void failedUntilSucceeded() {
        StorageHealth health = new StorageHealth();
        assertThat(health.problem()).isEmpty();

        health.failed(StorageHealth.STATE, "cannot write /s/state.json (Read-only file system)");
        health.failed(StorageHealth.SPOOL, "cannot write /s/spool (No space left on device)");
        assertThat(health.problem()).hasValue("spool write failed: cannot write /s/spool (No space left on device); "
                + "state write failed: cannot write /s/state.json (Read-only file system)");

        health.succeeded(StorageHealth.SPOOL);
        assertThat(health.isFailing(StorageHealth.SPOOL)).isFalse();
        assertThat(health.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("state write failed"));
        health.succeeded(StorageHealth.STATE);
        assertThat(health.problem()).isEmpty();
    }
}
