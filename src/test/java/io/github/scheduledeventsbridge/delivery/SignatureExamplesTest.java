package io.github.scheduledeventsbridge.delivery;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signature checks of docs/messages.md ("Verifying a signature"), run as printed with python3, node, java and
 * bash, against requests signed by the agent's own signer: a genuine one passes; a changed body, another secret or
 * a timestamp outside 300 s does not.
 */
class SignatureExamplesTest {

    private static final String SECRET = "documented-secret-0123456789abcdef-ä";
    /** Not ASCII on purpose: the snippets must sign the raw bytes. */
    private static final String BODY = "{\"specversion\":\"1.0\",\"id\":\"2f45f477-5d03-365f-a9a7-03e52d61ca3f\","
            + "\"type\":\"io.github.scheduledeventsbridge.transition.Scheduled\",\"subject\":\"C7061BAC\","
            + "\"data\":{\"description\":\"Réparation planifiée ✓\",\"resources\":[\"WestNO_0\"]}}";

    @TempDir
    Path work;

    @ParameterizedTest
    @ValueSource(strings = {"python", "javascript", "java", "sh"})
    void theDocumentedCheckAcceptsOnlyAGenuineFreshRequest(String language) throws Exception {
        String snippet = snippet(language);
        WebhookSigner agent = new WebhookSigner(SECRET, Clock.systemUTC());
        long now = System.currentTimeMillis() / 1000;
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        byte[] changed = BODY.replace("WestNO_0", "WestNO_1").getBytes(StandardCharsets.UTF_8);
        Path genuine = Files.write(work.resolve("genuine.json"), body);
        Path tampered = Files.write(work.resolve("tampered.json"), changed);
        List<String> cases = List.of(
                now + " " + agent.signature(Long.toString(now), body) + " " + genuine,
                (now - 120) + " " + agent.signature(Long.toString(now - 120), body) + " " + genuine,
                now + " " + agent.signature(Long.toString(now), body) + " " + tampered,
                now + " " + new WebhookSigner("another-secret", Clock.systemUTC()).signature(Long.toString(now), body) + " " + genuine,
                (now - 400) + " " + agent.signature(Long.toString(now - 400), body) + " " + genuine,
                (now + 400) + " " + agent.signature(Long.toString(now + 400), body) + " " + genuine);
        Path casesFile = Files.write(work.resolve("cases.txt"), cases);

        List<String> answers = run(language, snippet, casesFile);

        assertThat(answers).as(language + " snippet of docs/messages.md")
                .containsExactly("true", "true", "false", "false", "false", "false");
    }

    private List<String> run(String language, String snippet, Path cases) throws Exception {
        List<String> command = new ArrayList<>();
        switch (language) {
            case "python" -> {
                Path script = Files.writeString(work.resolve("verify.py"), snippet + """

                        import os, sys
                        for line in open(sys.argv[1]):
                            ts, sig, path = line.split()
                            print(str(verify(os.environ["SECRET"].encode(), ts, sig, open(path, "rb").read())).lower())
                        """);
                command.addAll(List.of("python3", script.toString()));
            }
            case "javascript" -> {
                Path script = Files.writeString(work.resolve("verify.js"), snippet + """

                        const fs = require("fs");
                        for (const line of fs.readFileSync(process.argv[2], "utf8").trim().split("\\n")) {
                          const [ts, sig, path] = line.split(" ");
                          console.log(String(verify(process.env.SECRET, ts, sig, fs.readFileSync(path))));
                        }
                        """);
                command.addAll(List.of("node", script.toString()));
            }
            case "java" -> {
                List<String> imports = snippet.lines().filter(l -> l.startsWith("import ")).toList();
                String method = String.join("\n", snippet.lines().filter(l -> !l.startsWith("import ")).toList());
                Path script = Files.writeString(work.resolve("Verify.java"), String.join("\n", imports) + """

                        import java.nio.file.Files;
                        import java.nio.file.Path;

                        public class Verify {
                        """ + method + """

                            public static void main(String[] args) throws Exception {
                                for (String line : Files.readAllLines(Path.of(args[0]))) {
                                    String[] f = line.split(" ");
                                    System.out.println(verify(System.getenv("SECRET").getBytes(StandardCharsets.UTF_8),
                                            f[0], f[1], Files.readAllBytes(Path.of(f[2]))));
                                }
                            }
                        }
                        """);
                command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), script.toString()));
            }
            default -> {
                Path script = Files.writeString(work.resolve("verify.sh"), snippet + """

                        while read -r ts sig path; do
                          if verify "$ts" "$sig" "$path"; then echo true; else echo false; fi
                        done < "$1"
                        """);
                command.addAll(List.of("bash", script.toString()));
            }
        }
        command.add(cases.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("SECRET", SECRET);
        builder.environment().put("WEBHOOK_SECRET", SECRET);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines().toList();
    }

    /** The fenced block of that language in the section "Verifying a signature" of docs/messages.md. */
    private static String snippet(String language) throws IOException {
        String page = Files.readString(Path.of("docs/messages.md"));
        String section = page.substring(page.indexOf("### Verifying a signature"));
        int fence = section.indexOf("```" + language + "\n");
        assertThat(fence).as("a ```" + language + " block in docs/messages.md, \"Verifying a signature\"").isNotNegative();
        int start = fence + 4 + language.length();
        return section.substring(start, section.indexOf("```", start));
    }
}
