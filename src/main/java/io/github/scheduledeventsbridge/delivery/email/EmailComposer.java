package io.github.scheduledeventsbridge.delivery.email;

import org.apache.camel.Exchange;

/** Route step: turns the spooled CloudEvent into a mail (subject, HTML body, plain-text alternative). */
public final class EmailComposer {

    public void compose(Exchange exchange) {
        throw new UnsupportedOperationException("email sink not implemented yet");
    }
}
