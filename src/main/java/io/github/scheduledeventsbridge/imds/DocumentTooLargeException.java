package io.github.scheduledeventsbridge.imds;

/**
 * IMDS answered with more than {@code bridge.imds.max-document-size} bytes: a failed poll (kind
 * {@code too-large}), refused before the rest is read, so a runaway answer cannot exhaust the heap.
 */
public class DocumentTooLargeException extends RuntimeException {
    public DocumentTooLargeException(String size, long limit) {
        super("IMDS document of " + size + " exceeds bridge.imds.max-document-size (" + limit + " bytes)");
    }
}
