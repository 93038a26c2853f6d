package io.github.scheduledeventsbridge.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's configuration table and config/application.properties document exactly the known keys. */
class DocumentedKeysTest {

    /** {@code `bridge.email.host`, `.port`}: a cell may abbreviate keys that share the first one's prefix. */
    private static final Pattern KEY = Pattern.compile("`((?:bridge)?\\.[a-z0-9.\\-]+)`");

    @Test
    void everyKnownKeyIsInTheReadmeTableAndEveryKeyThereIsKnown() throws IOException {
        Set<String> documented = readmeTableKeys();
        List<String> known = ConfigKeys.packaged().all().stream().map(ConfigKeys.Key::name).toList();
        assertThat(documented).as("keys in the README's table").containsExactlyInAnyOrderElementsOf(known);
    }

    @Test
    void theRepositoryFileIsThePackagedList() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("config/application.properties"));
        assertThat(ConfigKeys.parse(lines).all()).containsExactlyElementsOf(ConfigKeys.packaged().all());
        assertThat(ConfigKeys.packaged().all()).allSatisfy(key ->
                assertThat(key.comment().isEmpty() && !sharesACommentBlock(lines, key.name()))
                        .as(key.name() + " has a comment in config/application.properties").isFalse());
    }

    /** Keys listed right below another key share that key's comment (e.g. the three filter keys). */
    private static boolean sharesACommentBlock(List<String> lines, String key) {
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).startsWith(key + "=")) {
                String previous = lines.get(i - 1).strip();
                return previous.startsWith("bridge.") || previous.startsWith("#");
            }
        }
        return false;
    }

    /** Every key in the first cell of a row of the README's configuration tables. */
    private static Set<String> readmeTableKeys() throws IOException {
        Set<String> keys = new LinkedHashSet<>();
        for (String line : Files.readAllLines(Path.of("README.md"))) {
            if (line.startsWith("| `bridge.")) {
                Matcher m = KEY.matcher(line.split("\\|")[1]);
                String prefix = "";
                while (m.find()) {
                    String key = m.group(1);
                    if (key.startsWith("bridge.")) {
                        prefix = key.substring(0, key.lastIndexOf('.'));
                        keys.add(key);
                    } else {
                        keys.add(prefix + key);
                    }
                }
            }
        }
        return keys;
    }
}
