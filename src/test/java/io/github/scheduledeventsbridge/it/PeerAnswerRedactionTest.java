package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.HostileHttpReceiver.Answer;
import io.github.scheduledeventsbridge.testing.HostileHttpReceiver;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.stream.Stream;

import static io.github.scheduledeventsbridge.testing.Docs.A;
import static io.github.scheduledeventsbridge.testing.Docs.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A receiver that refuses every message by echoing the request it got: what it answers goes into the log and into
 * the dead letter's reason, but the URL's tokens and the Basic credentials the agent sent must not.
 */
class PeerAnswerRedactionTest {

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().webhookSecret("s");

    private static final String USER = "bridge";
    private static final String PASSWORD = "Pa55-word-of-the-hook";
    private static final String CODE = "Zm9vYmFyYmF6cXV4MTIzNDU2";
    private static final String SIG = "sig0123456789abcdef";

    @Test
    void anEchoedRequestLeavesNoTokenNorCredentialInTheLogOrTheDeadLetter() throws Exception {
        String basic = Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        try (HostileHttpReceiver receiver = new HostileHttpReceiver(i -> new Answer.Echo(400));
             LogCapture log = LogCapture.install()) {
            String url = receiver.url("/hook?code=" + CODE + "&sig=" + SIG).replace("://", "://" + USER + ":" + PASSWORD + "@");
            fixture.imds().serve(Docs.document(2, scheduled(A)));
            try (InProcessAgent agent = fixture.postingTo(url).with("bridge.delivery.dead-letter-after", "1000").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reason().isPresent());
            }
            assertThat(receiver.requests()).as("the echo carried them").allSatisfy(request -> assertThat(
                    request.requestLine() + request.headers()).contains(CODE, SIG, basic));
            String reason = reason().orElseThrow();
            assertThat(reason).contains("HTTP 400", "POST /hook?code=***");
            for (String text : new String[]{log.text(), reason}) {
                assertThat(text).doesNotContain(CODE, SIG, PASSWORD, basic);
            }
        }
    }

    /** The dead letter's reason file, once the message was moved there. */
    private Optional<String> reason() throws IOException {
        try (Stream<Path> files = Files.walk(fixture.state().resolve("spool"), 3)) {
            Optional<Path> file = files.filter(f -> f.getFileName().toString().endsWith(".reason.txt")).findFirst();
            return file.isPresent() ? Optional.of(Files.readString(file.get())) : Optional.empty();
        }
    }
}
