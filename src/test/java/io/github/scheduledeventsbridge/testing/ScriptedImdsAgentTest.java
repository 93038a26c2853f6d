package io.github.scheduledeventsbridge.testing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * The set-up the delivery-edge tests share: a scripted IMDS, a fresh state directory, and an in-process agent
 * that posts to the given webhook URLs, signed with the secret "s".
 */
public abstract class ScriptedImdsAgentTest {

    protected static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";
    protected static final String A = "AAAAAAAA-0000-0000-0000-00000000000A";
    protected static final String B = "BBBBBBBB-0000-0000-0000-00000000000B";

    @TempDir
    protected Path state;
    protected ScriptedImds imds;

    @BeforeEach
    void startImds() throws Exception {
        imds = new ScriptedImds();
    }

    @AfterEach
    void stopImds() {
        imds.close();
    }

    protected InProcessAgent.Builder agent(String... urls) {
        return InProcessAgent.builder(state).imds(imds)
                .with("bridge.webhook.urls", String.join(",", urls))
                .with("bridge.webhook.secret", "s");
    }

    /** A Scheduled Reboot of vm-a. */
    protected static String scheduled(String id) {
        return Docs.scheduled(id, "Reboot", NOT_BEFORE, "vm-a");
    }
}
