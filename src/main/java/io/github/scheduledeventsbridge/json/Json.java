package io.github.scheduledeventsbridge.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The agent's Jackson mappers, made once: a mapper is thread-safe and costly to build, and one configuration read in
 * one place says how the agent reads and writes JSON. Configured here only: never reconfigure them where they are used.
 */
public final class Json {

    /** Jackson's defaults: the agent's own files, messages and answers. */
    public static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * For documents from outside that the agent acts on (IMDS documents, approval requests): trailing bytes after the
     * document, or a key given twice, mean the body is not what its sender meant, so it is refused.
     */
    public static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Json() {
    }
}
