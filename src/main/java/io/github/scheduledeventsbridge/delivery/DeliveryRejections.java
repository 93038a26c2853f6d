package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.delivery.SpoolContent.UnreadableSpoolFileException;
import jakarta.mail.SendFailedException;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeException;
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
public final class DeliveryRejections {

    /** Exchange properties; they survive redeliveries, as the message does not. */
    static final String FIRST_REFUSED = "bridgeFirstRefused";
    public static final String DEAD_LETTER_DUE = "bridgeDeadLetterDue";

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

    /** retryWhile: refused messages are tried again until the window since their first refusal is over. */
    public boolean retryWithinWindow(@ExchangeException Throwable failure, Exchange exchange) {
        long now = clock.millis();
        Long first = exchange.getProperty(FIRST_REFUSED, Long.class);
        if (first == null) {
            first = now;
            exchange.setProperty(FIRST_REFUSED, first);
        }
        boolean unreadable = causedBy(failure, UnreadableSpoolFileException.class);
        if (unreadable || now - first >= window.toMillis()) {
            exchange.setProperty(DEAD_LETTER_DUE, true);
            return false;
        }
        return true;
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
