package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import io.github.scheduledeventsbridge.delivery.FilterSettings;

import java.util.List;
import java.util.regex.Pattern;

/** The SMTP sink: server, login, sender and recipients, and which transitions are mailed. */
public record EmailSettings(String host, int port, String username, String password, String from,
                            List<String> to, boolean starttls, FilterSettings filter) {

    /** By default, mail only what wakes a person: impactful events being scheduled or starting. */
    static final String DEFAULT_TRANSITIONS = "Scheduled,Started";
    static final String DEFAULT_EVENT_TYPES = "Reboot,Redeploy,Preempt,Terminate";

    private static final Pattern EMAIL = Pattern.compile("[^@\\s,<>]+@[^@\\s,<>]+\\.[^@\\s,<>]+");

    public static EmailSettings read(SettingsReader r) {
        String host = r.string("bridge.email.host", "");
        int port = r.port("bridge.email.port", 587);
        String from = r.string("bridge.email.from", "");
        List<String> to = r.list("bridge.email.to", "");
        if (!host.isEmpty()) {
            if (!EMAIL.matcher(from).matches()) {
                throw new BadConfigurationException("bridge.email.from",
                        from.isEmpty() ? "is required when bridge.email.host is set" : "'" + from + "' is not an email address");
            }
            if (to.isEmpty()) {
                throw new BadConfigurationException("bridge.email.to", "is required when bridge.email.host is set");
            }
            to.stream().filter(a -> !EMAIL.matcher(a).matches()).findFirst().ifPresent(a -> {
                throw new BadConfigurationException("bridge.email.to", "'" + a + "' is not an email address");
            });
        }
        String username = r.string("bridge.email.username", "");
        String password = r.string("bridge.email.password", "");
        if (username.isEmpty() != password.isEmpty()) {
            throw username.isEmpty()
                    ? new BadConfigurationException("bridge.email.username", "is required when bridge.email.password is set")
                    : new BadConfigurationException("bridge.email.password", "is required when bridge.email.username is set");
        }
        return new EmailSettings(host, port, username, password, from, to, r.bool("bridge.email.starttls", true),
                FilterSettings.read(r, "bridge.email.filter", DEFAULT_TRANSITIONS, DEFAULT_EVENT_TYPES));
    }

    public boolean enabled() {
        return !host.isEmpty();
    }

    /** The sink's label: the server, not the login nor the recipients. */
    public String label() {
        return "SMTP " + host + ":" + port;
    }

    @Override
    public String toString() {
        return enabled() ? label() + (starttls ? " (STARTTLS)" : "") + " to " + to
                : "email disabled";
    }
}
