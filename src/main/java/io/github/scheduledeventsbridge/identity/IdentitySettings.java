package io.github.scheduledeventsbridge.identity;

import io.github.scheduledeventsbridge.config.SettingsReader;

import java.net.URI;
import java.time.Duration;

/** Where the VM's managed identity gets its tokens (IMDS's identity endpoint) and how long one request may take. */
public record IdentitySettings(URI url, Duration timeout) {

    public static final String URL_KEY = "bridge.imds.identity-url";
    public static final String DEFAULT_URL = "http://169.254.169.254/metadata/identity/oauth2/token";

    public static IdentitySettings read(SettingsReader r) {
        return new IdentitySettings(r.httpUrl(URL_KEY, DEFAULT_URL), r.millis("bridge.imds.timeout", 10_000));
    }
}
