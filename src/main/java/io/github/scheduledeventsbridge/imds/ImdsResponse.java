package io.github.scheduledeventsbridge.imds;

import org.apache.camel.Exchange;

/** Route step after the IMDS GET: only a 200 with a complete document becomes a document. */
public final class ImdsResponse {

    private final ImdsDocumentParser parser = new ImdsDocumentParser();

    public ImdsDocument toDocument(Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null || status != 200) {
            throw new ImdsStatusException(status == null ? -1 : status,
                    exchange.getMessage().getHeader("Retry-After", String.class));
        }
        return parser.parse(exchange.getMessage().getBody(String.class));
    }
}
