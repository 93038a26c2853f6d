package io.github.scheduledeventsbridge.logging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

class LineFormatterTest {

    private static final Instant AT = Instant.parse("2026-11-23T01:05:36.191Z");
    private static final String CAMEL = "org.apache.camel.impl.engine.AbstractCamelContext";

    private static LogRecord record(Level level, String logger, String message, Throwable thrown) {
        LogRecord record = new LogRecord(level, message);
        record.setInstant(AT);
        record.setLoggerName(logger);
        record.setThrown(thrown);
        return record;
    }

    private static String text(LogRecord record) {
        return new LineFormatter(false).format(record);
    }

    private static JsonNode json(LogRecord record) throws Exception {
        String line = new LineFormatter(true).format(record);
        assertThat(line).endsWith("}\n").doesNotContain("\r").hasLineCount(1);
        return new ObjectMapper().readTree(line);
    }

    @Test
    void aTextLineIsUtcTimeCommaMillisPaddedLevelThreadAndTheLoggersLastSegment() {
        String thread = Thread.currentThread().getName();
        assertThat(text(record(Level.INFO, CAMEL, "Apache Camel started", null)))
                .isEqualTo("2026-11-23T01:05:36,191Z INFO  [" + thread + "] AbstractCamelContext - Apache Camel started\n");
        assertThat(text(record(Level.SEVERE, "io.github.scheduledeventsbridge.transitions", "m", null)))
                .isEqualTo("2026-11-23T01:05:36,191Z ERROR [" + thread + "] transitions - m\n");
        assertThat(text(record(Level.INFO, "plain", "m", null))).endsWith("] plain - m\n");
        assertThat(text(record(Level.INFO, null, null, null))).endsWith("]  - null\n");
    }

    @ParameterizedTest
    @CsvSource({"SEVERE, ERROR", "WARNING, WARN", "INFO, INFO", "CONFIG, DEBUG", "FINE, DEBUG", "FINER, TRACE",
            "FINEST, TRACE", "OFF, ERROR", "ALL, TRACE"})
    void levelsCarrySlf4jNames(String jul, String slf4j) throws Exception {
        Level level = Level.parse(jul);
        assertThat(LineFormatter.levelName(level)).isEqualTo(slf4j);
        assertThat(text(record(level, CAMEL, "m", null))).startsWith("2026-11-23T01:05:36,191Z " + slf4j + " ");
        assertThat(json(record(level, CAMEL, "m", null)).get("log.level").asText()).isEqualTo(slf4j);
    }

    @Test
    void anExceptionFollowsTheTextLineAsAStackTrace() {
        String line = text(record(Level.WARNING, CAMEL, "failed", new IllegalStateException("boom", new RuntimeException("root"))));
        assertThat(line).startsWith("2026-11-23T01:05:36,191Z WARN  [")
                .contains("] AbstractCamelContext - failed\njava.lang.IllegalStateException: boom\n\tat ")
                .contains("Caused by: java.lang.RuntimeException: root").endsWith("\n");
    }

    /** What an IMDS EventId, a command's output or a peer's answer could hold to write a line of its own. */
    private static final String FORGERY = "x\n2026-11-23T01:05:36,191Z ERROR [main] BridgeConfiguration - FORGED\r"
            + "\u001b[2J\u0085\u2028end";

    @Test
    void controlCharactersInTheMessageTheThreadNameOrAnExceptionCannotStartALine() {
        Thread thread = Thread.currentThread();
        String name = thread.getName();
        thread.setName("prepare " + FORGERY);
        String text;
        try {
            text = text(record(Level.INFO, "io.github.scheduledeventsbridge.transitions", "Scheduled Reboot " + FORGERY,
                    new IllegalStateException(FORGERY, new RuntimeException(FORGERY))));
        } finally {
            thread.setName(name);
        }
        List<String> lines = text.lines().toList();
        assertThat(lines.get(0)).startsWith("2026-11-23T01:05:36,191Z INFO  [prepare x\\n2026-11-23T01:05:36,191Z ERROR")
                .contains("] transitions - Scheduled Reboot x\\n2026-11-23T01:05:36,191Z ERROR [main] BridgeConfiguration "
                        + "- FORGED\\r\\u001b[2J\\u0085\\u2028end");
        assertThat(lines.subList(1, lines.size())).isNotEmpty().allSatisfy(line -> assertThat(line)
                .matches("(java.lang.IllegalStateException: |Caused by: java.lang.RuntimeException: |\tat |\t\\.\\.\\. ).*"));
        assertThat(text).doesNotContain("\r", "\u001b", "\u0085", "\u2028").contains("\tat ");
    }

    @Test
    void aJsonLineEscapesEscapeAndC1ControlsToo() throws Exception {
        String line = new LineFormatter(true).format(record(Level.INFO, CAMEL, FORGERY, null));
        assertThat(line).hasLineCount(1).doesNotContain("\u001b", "\u0085", "\u2028").contains("\\u001b[2J\\u0085\\u2028end");
        assertThat(new ObjectMapper().readTree(line).get("message").asText()).isEqualTo(FORGERY);
    }

    @Test
    void aJsonLineIsOneEcsObject() throws Exception {
        JsonNode json = json(record(Level.INFO, "io.github.scheduledeventsbridge.transitions", "Scheduled Reboot x", null));
        assertThat(json.get("@timestamp").asText()).isEqualTo("2026-11-23T01:05:36.191Z");
        assertThat(json.get("ecs.version").asText()).isEqualTo("1.2.0");
        assertThat(json.get("log.level").asText()).isEqualTo("INFO");
        assertThat(json.get("message").asText()).isEqualTo("Scheduled Reboot x");
        assertThat(json.get("process.thread.name").asText()).isEqualTo(Thread.currentThread().getName());
        assertThat(json.get("log.logger").asText()).isEqualTo("io.github.scheduledeventsbridge.transitions");
        assertThat(json.has("error.type")).isFalse();
        assertThat(json.size()).isEqualTo(6);
    }

    @Test
    void jsonEscapesQuotesBackslashesAndEveryControlCharacter() throws Exception {
        StringBuilder controls = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            controls.append(c);
        }
        String message = "say \"hi\" C:\\dir\nline two\r\n\ttab " + controls + " \u007f é \u2028 😀 end";
        String line = new LineFormatter(true).format(record(Level.INFO, "a\"b", message, null));
        assertThat(line.substring(0, line.length() - 1)).doesNotContainPattern("[\\x00-\\x1f]");
        assertThat(line).contains("say \\\"hi\\\" C:\\\\dir\\nline two\\r\\n\\ttab \\u0000\\u0001")
                .contains("\\b\\t\\n\\u000b\\f\\r\\u000e").contains("\\u001f");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.get("message").asText()).isEqualTo(message);
        assertThat(json.get("log.logger").asText()).isEqualTo("a\"b");
    }

    @Test
    void anExceptionFillsTheErrorFields() throws Exception {
        JsonNode json = json(record(Level.SEVERE, CAMEL, "failed", new IllegalStateException("bad \"state\"\nhere")));
        assertThat(json.get("error.type").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(json.get("error.message").asText()).isEqualTo("bad \"state\"\nhere");
        assertThat(json.get("error.stack_trace").asText())
                .startsWith("java.lang.IllegalStateException: bad \"state\"\nhere\n\tat ")
                .contains(LineFormatterTest.class.getName());

        JsonNode noMessage = json(record(Level.SEVERE, CAMEL, "failed", new NullPointerException()));
        assertThat(noMessage.get("error.type").asText()).isEqualTo("java.lang.NullPointerException");
        assertThat(noMessage.has("error.message")).isFalse();
    }

    @Test
    void julParametersAreFormatted() {
        LogRecord record = record(Level.INFO, "io.vertx.core.Vertx", "{0} of {1}", null);
        record.setParameters(new Object[] {"one", 2});
        assertThat(text(record)).endsWith("] Vertx - one of 2\n");
    }

    @Test
    void slf4jLogsThroughJulOntoTheHandlerInUtf8() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StdoutHandler handler = new StdoutHandler(out, new LineFormatter(false));
        Logger jul = Logger.getLogger("io.github.scheduledeventsbridge.logging.test");
        jul.addHandler(handler);
        jul.setUseParentHandlers(false);
        try {
            LoggerFactory.getLogger("io.github.scheduledeventsbridge.logging.test").warn("Grüße {} 😀", "to all",
                    new IllegalArgumentException("x"));
            LoggerFactory.getLogger("io.github.scheduledeventsbridge.logging.test").debug("not at INFO");
        } finally {
            jul.removeHandler(handler);
            jul.setUseParentHandlers(true);
        }
        String written = out.toString(StandardCharsets.UTF_8);
        assertThat(written).matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d,\\d{3}Z WARN  \\[[^\\]]+\\] test - "
                + "Grüße to all 😀\njava.lang.IllegalArgumentException: x\n\tat .*");
        assertThat(written).doesNotContain("not at INFO");
    }
}
