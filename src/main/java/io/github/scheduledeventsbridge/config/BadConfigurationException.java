package io.github.scheduledeventsbridge.config;

/** Start-up stops with this message alone: it names the key and the reason. */
public class BadConfigurationException extends RuntimeException {
    public BadConfigurationException(String key, String reason) {
        super("Bad configuration: " + key + ": " + reason);
    }
}
