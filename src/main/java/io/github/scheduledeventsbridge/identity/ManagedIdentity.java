package io.github.scheduledeventsbridge.identity;

import java.time.Clock;
import java.util.function.Supplier;

/**
 * The VM's managed identity: one token cache for all that use it (the approval queue, Event Grid topics), made at
 * the first use, so that an agent that uses none loads no HTTP client. Its endpoint is read at the first token: the
 * built-in simulator's port is known only once it has started.
 */
public final class ManagedIdentity {

    private final Supplier<IdentitySettings> settings;
    private final Clock clock;
    private ManagedIdentityTokens tokens;

    public ManagedIdentity(Supplier<IdentitySettings> settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    public synchronized ManagedIdentityTokens tokens() {
        if (tokens == null) {
            tokens = new ManagedIdentityTokens(() -> settings.get().url(), settings.get().timeout(), clock);
        }
        return tokens;
    }
}
