package io.github.scheduledeventsbridge.approval;

/**
 * A request to the approval port, arrived whole: the raw body bytes (the signature covers exactly those), the two
 * signature headers (null when absent) and the client's address; nothing else the client sent.
 */
public record SignedApproval(byte[] body, String timestamp, String signature, String client) {
}
