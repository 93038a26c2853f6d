package io.github.scheduledeventsbridge.delivery.eventgrid;

import io.github.scheduledeventsbridge.delivery.HttpAnswer;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.WebhookFormat;
import io.github.scheduledeventsbridge.delivery.WebhookTarget;
import org.apache.camel.Body;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Headers;
import org.apache.camel.Message;
import org.apache.camel.ProducerTemplate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One Event Grid attempt (routes/eventgrid-sink.yaml): the requests of a spool file ({@link EventGridRequests})
 * POSTed one after the other to the topic, each with its key or token ({@link EventGridAuthorization}), each only
 * once the topic accepted the one before; each answer means what it means for any webhook ({@link HttpAnswer}).
 *
 * <p>{@link Accepted} counts the requests the topic accepted. It is an exchange property ({@value #ACCEPTED}), so
 * it outlives the lane's redeliveries (which restore the message, not the properties): a retry resumes with the
 * first request not accepted instead of repeating accepted ones.
 */
public final class EventGridSender {

    /** The exchange property with the spool file's {@link Accepted} requests. */
    public static final String ACCEPTED = "eventGridAccepted";

    /**
     * The same for every topic: its URL goes in the {@link Exchange#HTTP_URI} header at run time, so its query is
     * never read as endpoint options and no key or token is part of an endpoint URI. Only the answer's headers come
     * back (copyHeaders=false): the request's key, token and URL do not stay on the answer. The answer is read only
     * a few KiB deep, within bridge.delivery.attempt-timeout (delivery/BoundedHttpClient).
     */
    static final String ENDPOINT = "http://webhook-target?httpMethod=POST&throwExceptionOnFailure=false"
            + "&copyHeaders=false&httpClientConfigurer=#boundedHttpClient";

    private final CamelContext context;
    private final EventGridAuthorization authorization;
    private final HttpAnswer answers;
    private ProducerTemplate producer;

    public EventGridSender(CamelContext context, EventGridAuthorization authorization, HttpAnswer answers) {
        this.context = context;
        this.authorization = authorization;
        this.answers = answers;
    }

    /** How many of one spool file's requests the topic has accepted, across attempts. */
    public static final class Accepted {
        private int requests;

        public int requests() {
            return requests;
        }

        @Override
        public String toString() {
            return requests + " request(s) accepted";
        }
    }

    /** First step of an attempt: the count from an earlier attempt of this message, or none yet. */
    public Accepted acceptedSoFar(@ExchangeProperty(ACCEPTED) Accepted accepted) {
        return accepted != null ? accepted : new Accepted();
    }

    /**
     * The requests not accepted yet, in order; returns once the topic accepted the last. A request not accepted
     * fails the attempt with {@link HttpAnswer}'s exception, its Retry-After (if any) put in {@code headers} for
     * the lane's next pause.
     */
    public void send(@Body byte[] spooled, @ExchangeProperty(Sink.PROPERTY) Sink sink,
                     @ExchangeProperty(ACCEPTED) Accepted accepted, @Headers Map<String, Object> headers)
            throws Exception {
        WebhookFormat format = sink.targetAs(WebhookTarget.class).format();
        List<byte[]> requests = EventGridRequests.requests(EventGridRequests.events(spooled, format),
                EventGridRequests.MAX_REQUEST_BYTES);
        while (accepted.requests < requests.size()) {
            Map<String, Object> request = new HashMap<>();
            request.put(Exchange.CONTENT_TYPE, EventGridRequests.contentType(format));
            // A fresh token when the one held expires: asked before each request, as the route did.
            authorization.authorize(sink, request);
            byte[] body = requests.get(accepted.requests);
            Exchange sent = producer().send(ENDPOINT, exchange -> {
                exchange.getMessage().setHeaders(request);
                exchange.getMessage().setBody(body);
            });
            if (sent.getException() != null) {
                throw sent.getException();
            }
            classify(sent.getMessage(), sink, headers);
            accepted.requests++;
        }
    }

    /** {@link HttpAnswer#classify} on the answer; what it asks of the lane's next pause goes to the lane's message. */
    private void classify(Message answer, Sink sink, Map<String, Object> laneHeaders) {
        Map<String, Object> answerHeaders = answer.getHeaders();
        try {
            answers.classify(answer.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class),
                    answer.getHeader(Exchange.HTTP_RESPONSE_TEXT, String.class),
                    answer.getHeader("Retry-After", String.class), answer, sink, answerHeaders);
        } catch (RuntimeException notAccepted) {
            Object delay = answerHeaders.get(Exchange.REDELIVERY_DELAY);
            if (delay != null) {
                laneHeaders.put(Exchange.REDELIVERY_DELAY, delay);
            }
            throw notAccepted;
        }
    }

    /** Made on first use: a run without Event Grid topics never needs one. */
    private synchronized ProducerTemplate producer() {
        if (producer == null) {
            producer = context.createProducerTemplate();
        }
        return producer;
    }
}
