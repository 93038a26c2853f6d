package io.github.scheduledeventsbridge.delivery.eventgrid;

import java.io.IOException;

/** Bearer tokens of the VM's managed identity, for one resource (e.g. {@code https://eventgrid.azure.net}). */
@FunctionalInterface
public interface AccessTokens {

    /** A token valid for a while yet; an {@link IOException} whose message holds no token when none can be had. */
    String token(String resource) throws IOException;
}
