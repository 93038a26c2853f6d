package io.github.scheduledeventsbridge.it;

import io.github.scheduledeventsbridge.testing.AgentFixture;
import io.github.scheduledeventsbridge.testing.ApprovalClient;
import io.github.scheduledeventsbridge.testing.Docs;
import io.github.scheduledeventsbridge.testing.InProcessAgent;
import io.github.scheduledeventsbridge.testing.ScriptedImds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 random or mutated approval requests against the running agent: none may reach IMDS, none may
 * get anything but a 4xx, and the agent must still approve a valid request afterwards.
 */
class ApprovalFuzzTest {

    private static final String SECRET = "fuzz-secret-for-tests-0123456789abcdef";
    private static final String SCHEDULED = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    private static final String STARTED = "5DD55B64-45AD-49D3-BBC9-F57D4EA97BD7";
    private static final int REQUESTS = 10_000;
    /** Seeds for mutation never name the Scheduled event, so no mutation can be a valid approval. */
    private static final String[] SEEDS = {
            "{\"EventId\":\"" + STARTED + "\"}",
            "{\"StartRequests\":[{\"EventId\":\"" + STARTED + "\"}]}",
            "{\"EventId\":\"00000000-0000-0000-0000-000000000000\"}",
            "{\"StartRequests\":[{\"EventId\":\"A\"},{\"EventId\":\"B\"}]}",
            "{\"EventId\":null}", "{}", "[]", "\"x\"", "{\"StartRequests\":{}}"};
    private static final String ALPHABET = "{}[]\":,. \\\n\t0123456789abcdefABCDEF-EventIdStartRequests\u00e9\u0000";

    @RegisterExtension
    final AgentFixture fixture = AgentFixture.scriptedImds().approvalPort(SECRET);

    @Test
    void noMutatedRequestReachesImdsOrBreaksTheAgent() throws Exception {
        Random random = new Random(20261120);
        Map<Integer, Integer> statuses = new TreeMap<>();
        ScriptedImds imds = fixture.imds();
        imds.serve(Docs.document(3, Docs.scheduled(SCHEDULED, "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT", "vm"),
                Docs.started(STARTED, "Reboot", "vm")));
        int port = fixture.approvalPort();
        try (InProcessAgent agent = fixture.start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> imds.documentsServed() >= 1);
            ApprovalClient client = fixture.approvals();
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<String> answer = client.send(mutant(random, port));
                statuses.merge(answer.statusCode(), 1, Integer::sum);
            }
            assertThat(imds.startRequests()).as("no mutant reached IMDS; statuses %s", statuses).isEmpty();
            assertThat(statuses.keySet()).as("only refusals, never a server error").isSubsetOf(Set.of(400, 401, 404, 405, 409, 413));
            assertThat(statuses.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(REQUESTS);

            assertThat(client.approve("{\"EventId\":\"" + SCHEDULED + "\"}").statusCode()).isEqualTo(200);
            assertThat(imds.startRequests()).hasSize(1);
            System.out.println("Approval fuzz: " + REQUESTS + " requests, statuses " + statuses);
        }
    }

    private static HttpRequest mutant(Random random, int port) {
        byte[] body = body(random);
        String timestamp = ApprovalClient.now();
        String signature;
        switch (random.nextInt(6)) {
            case 0 -> signature = ApprovalClient.sign(SECRET, timestamp, body);              // valid: reaches the body checks
            case 1 -> signature = ApprovalClient.sign("not-the-secret", timestamp, body);
            case 2 -> signature = "sha256=" + randomText(random, "0123456789abcdef", 64);
            case 3 -> {
                timestamp = Long.toString(Long.parseLong(timestamp) + (random.nextBoolean() ? -1 : 1) * (301 + random.nextInt(100000)));
                signature = ApprovalClient.sign(SECRET, timestamp, body);                     // valid key, stale time
            }
            case 4 -> {
                timestamp = randomText(random, ALPHABET, random.nextInt(20));
                signature = ApprovalClient.sign(SECRET, timestamp, body);
            }
            default -> signature = randomText(random, ALPHABET, random.nextInt(80));
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/approvals"))
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (random.nextInt(10) > 0) {
            request.header("X-Bridge-Timestamp", headerSafe(timestamp));
        }
        if (random.nextInt(10) > 0) {
            request.header("X-Bridge-Signature", headerSafe(signature));
        }
        if (random.nextInt(4) == 0) {
            request.header("Content-Type", random.nextBoolean() ? "text/plain" : "application/json; charset=latin1");
        }
        return request.build();
    }

    private static byte[] body(Random random) {
        int kind = random.nextInt(10);
        if (kind == 0) {
            byte[] bytes = new byte[random.nextInt(2048)];
            random.nextBytes(bytes);
            return bytes;
        }
        if (kind == 1) {
            return new byte[64 * 1024 + 1 + random.nextInt(1024)];
        }
        StringBuilder text = new StringBuilder(SEEDS[random.nextInt(SEEDS.length)]);
        for (int m = random.nextInt(4); m > 0 && text.length() > 0; m--) {
            int at = random.nextInt(text.length());
            switch (random.nextInt(3)) {
                case 0 -> text.deleteCharAt(at);
                case 1 -> text.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                default -> text.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String randomText(Random random, String alphabet, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /** The JDK client refuses control characters in header values; keep the rest of the mutation. */
    private static String headerSafe(String value) {
        StringBuilder safe = new StringBuilder();
        value.chars().filter(c -> c >= 0x20 && c < 0x7f).forEach(c -> safe.append((char) c));
        return safe.toString().trim();
    }
}
