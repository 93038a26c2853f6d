package io.github.scheduledeventsbridge.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command of the host's (debootstrap, podman, nsenter, mount), run with no input and a deadline. */
final class HostCommand {

    /** Its exit code and what it printed (stdout and stderr). */
    record Result(int exitCode, String output) {
    }

    private HostCommand() {
    }

    /** Runs it; a command still running at the deadline is killed and fails the test with what it printed. */
    static Result run(List<String> command, Duration timeout) throws Exception {
        Path output = Files.createTempFile("seb-command-", ".out");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            String said = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(ended).as(String.join(" ", command) + " did not end within " + timeout + ":\n" + said).isTrue();
            return new Result(process.exitValue(), said);
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** Runs it and fails the test unless it exits 0; what it printed. */
    static String must(List<String> command, Duration timeout) throws Exception {
        Result result = run(command, timeout);
        assertThat(result.exitCode()).as(String.join(" ", command) + " said:\n" + result.output()).isZero();
        return result.output();
    }
}
