package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.delivery.SpoolContent.UnreadableSpoolFileException;
import jakarta.mail.SendFailedException;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeException;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Processor;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;

import java.time.Clock;
import java.time.Duration;

/**
 * Which delivery failures are the message's fault rather than the receiver's state, and how long such a
 * message is still tried (routes/error-handling.yaml, routeConfiguration sink-delivery). Everything else
 * (5xx, 408, 429, timeouts, refused connections, SMTP 4xx, failed SMTP authentication, Event Hubs errors)
 * is retried until delivered: a configuration or an outage can be fixed, and the message is still good.
 * <ul>
 *   <li>a webhook's 4xx other than 408 and 429 ({@link HttpAnswer.DeliveryRejectedException});</li>
 *   <li>an SMTP server's permanent refusal of the message or its recipients (550-559, e.g. 550 mailbox
 *       unknown, 552 too big, 553 address not allowed, 554 rejected as spam);</li>
 *   <li>a spool file that is not a message ({@link UnreadableSpoolFileException}): dead-lettered at once.</li>
 * </ul>
 * The first two are tried again with back-off for {@code bridge.delivery.dead-letter-after} from the first
 * refusal (a receiver being redeployed may answer 404 for a while), then dead-lettered.
 */
public final class DeliveryRejections implements Processor {

    /** Exchange property: when this message was first refused. It survives redeliveries, as the message does not. */
    static final String FIRST_REFUSED = "bridgeFirstRefused";

    private final Duration window;
    private final Clock clock;

    public DeliveryRejections(Duration window, Clock clock) {
        this.window = window;
        this.clock = clock;
    }

    /** onWhen: the failure says the receiver will not take this message. */
    public boolean isRefusal(@ExchangeException Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof HttpAnswer.DeliveryRejectedException || t instanceof UnreadableSpoolFileException
                    || permanentSmtp(t)) {
                return true;
            }
            if (t instanceof SendFailedException sendFailed && sendFailed.getNextException() != null
                    && permanentSmtp(sendFailed.getNextException())) {
                return true;
            }
        }
        return false;
    }

    /**
     * onExceptionOccurred (a Processor is what Camel calls there, right after each failure and before any
     * decision): a refusal starts the message's window, once.
     */
    @Override
    public void process(Exchange exchange) {
        Throwable failure = exchange.getException() != null ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (exchange.getProperty(FIRST_REFUSED) == null && isRefusal(failure)) {
            exchange.setProperty(FIRST_REFUSED, clock.millis());
        }
    }

    /** retryWhile: a refused message is tried again until the window since its first refusal is over. */
    public boolean retryWithinWindow(@ExchangeException Throwable failure,
                                     @ExchangeProperty(FIRST_REFUSED) Long firstRefused) {
        return !deadLetterDue(failure, firstRefused);
    }

    /**
     * The failure handler's choice: a refused message whose window is over goes to dead-letter/; an unreadable
     * spool file goes there at once. A stop that ends the retries before then keeps it for the next start.
     */
    public boolean deadLetterDue(@ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Throwable failure,
                                 @ExchangeProperty(FIRST_REFUSED) Long firstRefused) {
        if (causedBy(failure, UnreadableSpoolFileException.class)) {
            return true;
        }
        return firstRefused != null && clock.millis() - firstRefused >= window.toMillis();
    }

    private static boolean permanentSmtp(Throwable t) {
        int code = t instanceof SMTPSendFailedException send ? send.getReturnCode()
                : t instanceof SMTPAddressFailedException address ? address.getReturnCode() : -1;
        return code >= 550 && code <= 559;
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
