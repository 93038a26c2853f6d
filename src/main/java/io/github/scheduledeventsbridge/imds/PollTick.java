package io.github.scheduledeventsbridge.imds;

/** What one tick of the poll sends, decided once at its start ({@link PollBackoff#tick}); routes/poll.yaml reads it. */
public enum PollTick {
    /** IMDS has asked us to slow down (429, 410, 5xx): this tick sends nothing. */
    WAIT,
    /** IMDS has not answered in this run yet, and may take up to two minutes to answer the first request after it
     * is enabled: the GET waits bridge.imds.first-call-timeout. */
    FIRST_CALL,
    /** The GET, within bridge.imds.timeout. */
    POLL
}
