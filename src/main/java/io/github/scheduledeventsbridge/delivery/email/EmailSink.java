package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.config.BridgeSettings.EmailSettings;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.transitions.OutboundEvent;

import java.util.Map;
import java.util.function.Predicate;

/** The email sink: one mail per transition, through camel-mail (SMTP). */
public final class EmailSink {

    private EmailSink() {
    }

    public static Sink create(EmailSettings settings, Predicate<OutboundEvent> filter) {
        return new Sink("email", settings.toString(), "email-sink", Map.of("endpoint", endpointUri(settings)), filter);
    }

    /** The camel-mail endpoint; the password goes in RAW() so no character of it is reinterpreted. */
    static String endpointUri(EmailSettings s) {
        throw new UnsupportedOperationException("email sink not implemented yet");
    }
}
