package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.Exchange;

/**
 * Route step after a sink's HTTP call. The call itself never throws on a status (throwExceptionOnFailure
 * is off) because Camel's own exception would print the full URL, and webhook URLs carry secrets.
 */
public final class HttpAnswer {

    public void requireSuccess(Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null || status < 200 || status > 299) {
            throw new DeliveryFailedException(exchange.getProperty("sinkId", String.class)
                    + " answered HTTP " + status + "; will retry");
        }
    }

    public static final class DeliveryFailedException extends RuntimeException {
        public DeliveryFailedException(String message) {
            super(message);
        }
    }
}
