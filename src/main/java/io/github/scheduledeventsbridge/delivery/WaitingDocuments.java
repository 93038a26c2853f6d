package io.github.scheduledeventsbridge.delivery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The spool documents with messages still waiting, by file. Once the routes stopped (a graceful stop: no lane takes
 * another message) each keeps only those ({@link SpoolDocument#keepOnlyWaiting}), so the next start does not send
 * the delivered ones again. A document that cannot be rewritten (disk read-only or full) stays whole: all its
 * messages are sent again, as after a crash.
 */
final class WaitingDocuments {

    private static final Logger LOG = LoggerFactory.getLogger(WaitingDocuments.class);

    private final Map<Path, SpoolDocument> documents = new ConcurrentHashMap<>();

    /** A document's entries as written or read again at start: the latest for its file. */
    void add(List<SpoolEntry> entries) {
        if (!entries.isEmpty()) {
            documents.put(entries.get(0).file(), entries.get(0).document());
        }
    }

    /** Every message of the document left the spool, and so did its file. */
    void remove(SpoolDocument document) {
        documents.remove(document.file(), document);
    }

    void keepOnlyWaiting() {
        int rewritten = 0;
        long left = 0;
        int failed = 0;
        Exception failure = null;
        for (Path file : documents.keySet().stream().sorted().toList()) {
            SpoolDocument document = documents.get(file);
            try {
                int delivered = document == null ? 0 : document.keepOnlyWaiting();
                rewritten += delivered > 0 ? 1 : 0;
                left += delivered;
            } catch (java.io.IOException | RuntimeException e) {
                failed++;
                failure = failure == null ? e : failure;
            }
        }
        if (rewritten > 0) {
            LOG.info("Stopping: {} spool document(s) rewritten without their {} message(s) already delivered or "
                    + "dead-lettered; the next start sends only the waiting ones", rewritten, left);
        }
        if (failed > 0) {
            LOG.warn("Stopping: {} spool document(s) could not be rewritten without their delivered messages ({}): "
                    + "the next start may send those messages again (same ids)", failed, failure.toString());
        }
    }
}
