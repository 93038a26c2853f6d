package io.github.scheduledeventsbridge.imds;

/** IMDS answered, but not with a usable document. The poll counts as failed; nothing changes. */
public class InvalidDocumentException extends RuntimeException {
    public InvalidDocumentException(String reason) {
        super("IMDS document rejected: " + reason);
    }
}
