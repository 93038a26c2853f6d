package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.delivery.WebhookSigner;
import io.github.scheduledeventsbridge.testing.QueueApprovals;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The envelope's checks, one row each: what is refused, as what. */
class SignedEnvelopeTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";
    private static final String BODY = "{\"EventId\":\"A\"}";
    private static final Instant INSERTED = Instant.parse("2026-11-28T12:00:00Z");
    private final SignedEnvelope envelopes = new SignedEnvelope(new WebhookSigner(SECRET, Clock.systemUTC()));
    private final long ts = INSERTED.getEpochSecond();

    @Test
    void aValidEnvelopeAsTextOrBase64GivesTheBodyBytes() throws Exception {
        String text = QueueApprovals.envelope(SECRET, ts, BODY);
        assertThat(new String(envelopes.verify(text, INSERTED).body())).isEqualTo(BODY);
        assertThat(new String(envelopes.verify(QueueApprovals.base64(text), INSERTED).body())).isEqualTo(BODY);
        String stringTimestamp = text.replace("\"timestamp\":" + ts, "\"timestamp\":\"" + ts + "\"");
        assertThat(envelopes.verify(stringTimestamp, INSERTED.plusSeconds(300)).timestamp()).isEqualTo(ts);
    }

    @Test
    void eachFailedCheckIsItsOwnRefusal() {
        refused("hello", SignedEnvelope.Refusal.JUNK, INSERTED);
        refused("[1,2]", SignedEnvelope.Refusal.JUNK, INSERTED);
        refused("{\"body\":\"x\"}", SignedEnvelope.Refusal.UNSIGNED, INSERTED);
        refused(QueueApprovals.envelope(SECRET, ts, BODY).replace("}\"}", "}\",\"extra\":1}"), SignedEnvelope.Refusal.JUNK, INSERTED);
        refused(QueueApprovals.envelope("another-secret-of-enough-length-0123456789", ts, BODY), SignedEnvelope.Refusal.BAD_SIGNATURE, INSERTED);
        refused(QueueApprovals.envelope(SECRET, ts, BODY).replace("EventId\\\":\\\"A", "EventId\\\":\\\"B"), SignedEnvelope.Refusal.BAD_SIGNATURE, INSERTED);
        refused(QueueApprovals.envelope(SECRET, ts, BODY), SignedEnvelope.Refusal.EXPIRED, INSERTED.plusSeconds(301));
        refused(QueueApprovals.envelope(SECRET, ts, BODY), SignedEnvelope.Refusal.EXPIRED, INSERTED.minusSeconds(301));
    }

    private void refused(String text, SignedEnvelope.Refusal kind, Instant inserted) {
        assertThatThrownBy(() -> envelopes.verify(text, inserted)).as(text)
                .isInstanceOfSatisfying(SignedEnvelope.Refused.class, r -> assertThat(r.kind()).isEqualTo(kind));
    }
}
