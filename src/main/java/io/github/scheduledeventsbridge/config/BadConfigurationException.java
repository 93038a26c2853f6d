package io.github.scheduledeventsbridge.config;

/** Start-up stops with this message alone: it names the key, where its value came from, and the reason. */
public class BadConfigurationException extends RuntimeException {

    private final String key;
    private final String reason;
    private final String source;

    public BadConfigurationException(String key, String reason) {
        this(key, reason, null);
    }

    private BadConfigurationException(String key, String reason, String source) {
        super("Bad configuration: " + key + ": " + reason + (source == null ? "" : " (from " + source + ")"));
        this.key = key;
        this.reason = reason;
        this.source = source;
    }

    /** The same refusal, naming where the value was set (-D, an environment variable, a file). */
    public BadConfigurationException from(String where) {
        return source != null || where == null ? this : new BadConfigurationException(key, reason, where);
    }

    public String key() {
        return key;
    }

    public String reason() {
        return reason;
    }

    public String source() {
        return source;
    }
}
