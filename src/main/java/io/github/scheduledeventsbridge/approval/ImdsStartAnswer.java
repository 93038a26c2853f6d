package io.github.scheduledeventsbridge.approval;

import org.apache.camel.Exchange;

/** Route step after a StartRequests POST: IMDS accepted only if it answered 200. */
public final class ImdsStartAnswer {

    public void require200(Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null || status != 200) {
            throw new ApprovalRefused(502, "IMDS refused the approval (HTTP " + status + ")");
        }
    }
}
