package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.transitions.OutboundEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The webhook sinks, one per target: lane from routes/sink-lane.yaml, attempts from routes/webhook-sink.yaml (an
 * Event Grid topic's from routes/eventgrid-sink.yaml).
 * A target's spool is named {@code webhook-} + a hash of its {@link WebhookTarget#identity() identity} (no query,
 * no credentials), so rotating a token keeps its waiting messages; targets that differ only in their query are
 * told apart by it.
 */
public final class WebhookSink {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookSink.class);
    /** The one-attempt route of an Event Grid topic (routes/eventgrid-sink.yaml). */
    public static final String EVENT_GRID_ATTEMPT = "direct:eventgrid-attempt";

    private WebhookSink() {
    }

    /** {@code legacySpoolIds} receives the names earlier versions gave the same spools (a hash of the whole URL). */
    public static List<Sink> create(List<WebhookTarget> targets, Predicate<OutboundEvent> filter,
                                    Map<String, String> legacySpoolIds) {
        return create(targets, filter, legacySpoolIds, 1);
    }

    /** Each target with {@code concurrency} lanes: that many messages at a time, each event's in order. */
    public static List<Sink> create(List<WebhookTarget> targets, Predicate<OutboundEvent> filter,
                                    Map<String, String> legacySpoolIds, int concurrency) {
        Map<String, Long> sameIdentity = targets.stream()
                .collect(Collectors.groupingBy(WebhookTarget::identity, Collectors.counting()));
        List<Sink> sinks = new ArrayList<>();
        for (WebhookTarget target : targets) {
            boolean ambiguous = sameIdentity.get(target.identity()) > 1;
            if (ambiguous) {
                LOG.warn("Webhook targets {} differ only in their query string: their spools are named after the whole "
                        + "URL, so changing that query later leaves the waiting messages behind (reported at start)", target);
            }
            String id = "webhook-" + shortHash(target.identity(ambiguous));
            legacySpoolIds.put(legacyId(target), id);
            if (target.format().eventGrid()) {
                // A topic takes events in batches (up to 1 MB a request): each document's transitions together,
                // in one lane (routes/eventgrid-sink.yaml).
                sinks.add(new Sink(id, target.label(), "webhook " + target + ", " + filter, EVENT_GRID_ATTEMPT, target, filter, true, 1));
            } else {
                sinks.add(new Sink(id, target.label(), "webhook " + target + ", " + filter, "direct:webhook-attempt",
                        target, filter, false, concurrency));
            }
        }
        return sinks;
    }

    /** What earlier versions named this target's spool. */
    static String legacyId(WebhookTarget target) {
        return "webhook-" + shortHash(target.url().toString());
    }

    /** A stable directory name: the spool of a target survives restarts, its URL stays out of paths. */
    static String shortHash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
