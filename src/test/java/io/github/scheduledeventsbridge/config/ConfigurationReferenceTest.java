package io.github.scheduledeventsbridge.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * config/application.properties is the one reference of the configuration: docs/configuration.md shows exactly
 * its keys with their defaults (generated from it: {@value ConfigurationReference#COMMAND} rewrites the page),
 * and no page of the documentation names a key the file lacks.
 */
class ConfigurationReferenceTest {

    private static final Path PROPERTIES = Path.of("config/application.properties");
    private static final Path PAGE = Path.of("docs/configuration.md");
    /** A key as prose names it: -Dbridge.x.y, `bridge.x.y`, BRIDGE_X_Y (not io.github.scheduledeventsbridge.…). */
    private static final Pattern NAMED_KEY = Pattern.compile("(?<![a-z0-9._/-])bridge\\.[a-z][a-z0-9-]*(?:\\.[a-z][a-z0-9-]*)*");
    /** Named on purpose: a property of the build (pom.xml), and the name of the packages' settings file. */
    private static final Set<String> NOT_SETTINGS = Set.of("bridge.commit", "bridge.properties");
    private static final Pattern NAMED_VARIABLE = Pattern.compile("\\bBRIDGE_[A-Z0-9_]*[A-Z0-9]\\b");

    @Test
    void theConfigurationPageIsGeneratedFromThePropertiesFile() throws IOException {
        String page = Files.readString(PAGE);
        String generated = ConfigurationReference.render(Files.readAllLines(PROPERTIES));
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(PAGE, ConfigurationReference.replaceGenerated(page, generated));
            page = Files.readString(PAGE);
        }
        assertThat(ConfigurationReference.generatedPart(page))
                .as("docs/configuration.md is out of date with config/application.properties: run "
                        + ConfigurationReference.COMMAND + " and commit the page")
                .isEqualTo(generated);
    }

    /** Read independently of the renderer: each key of the file has a row of its own keys with its own default. */
    @Test
    void everyKeyOfTheFileIsOnThePageWithItsDefault() throws IOException {
        Properties file = new Properties();
        try (Reader in = Files.newBufferedReader(PROPERTIES, StandardCharsets.UTF_8)) {
            file.load(in);
        }
        List<String> rows = Files.readAllLines(PAGE).stream().filter(l -> l.startsWith("| `")).toList();
        assertThat(file.stringPropertyNames()).isNotEmpty().allSatisfy(key -> {
            String row = rows.stream().filter(r -> firstCell(r).contains("`" + key + "`")).findFirst().orElse(null);
            assertThat(row).as(key + " has a row on docs/configuration.md").isNotNull();
            List<String> names = List.of(firstCell(row).split("<br>"));
            String value = file.getProperty(key);
            String shown = List.of(row.split("(?<!\\\\)\\|")[2].strip().split("<br>")).get(names.indexOf("`" + key + "`"));
            assertThat(shown).as("default of " + key).isEqualTo(value.isEmpty() ? "*empty*" : "`" + value.replace("|", "\\|") + "`");
        });
    }

    @Test
    void noPageNamesAKeyThePropertiesFileLacks() throws IOException {
        List<String> known = ConfigKeys.packaged().all().stream().map(ConfigKeys.Key::name).toList();
        Set<String> unknown = new TreeSet<>();
        for (Path page : pages()) {
            // The refusals shown as examples name unknown keys on purpose.
            String text = String.join("\n", Files.readAllLines(page).stream()
                    .filter(line -> !line.contains("is not a known key")).toList());
            Matcher key = NAMED_KEY.matcher(text);
            while (key.find()) {
                String name = key.group();
                // A key, or a group of keys named by their common prefix (bridge.email.*, bridge.approval.auto).
                if (!known.contains(name) && !NOT_SETTINGS.contains(name) && known.stream().noneMatch(k -> k.startsWith(name + "."))) {
                    unknown.add(page + ": " + name);
                }
            }
            Matcher variable = NAMED_VARIABLE.matcher(text);
            while (variable.find()) {
                String name = variable.group();
                if (known.stream().map(ConfigKeys::environmentName).noneMatch(v -> v.equals(name) || v.startsWith(name + "_"))) {
                    unknown.add(page + ": " + name);
                }
            }
        }
        assertThat(unknown).as("keys named in the documentation that config/application.properties does not have").isEmpty();
    }

    @Test
    void theRepositoryFileIsThePackagedListAndEveryKeyIsExplained() throws IOException {
        List<String> lines = Files.readAllLines(PROPERTIES);
        assertThat(ConfigKeys.parse(lines).all()).containsExactlyElementsOf(ConfigKeys.packaged().all());
        for (ConfigurationReference.Section section : ConfigurationReference.sections(lines)) {
            assertThat(section.entries()).allSatisfy(entry -> assertThat(entry.meaning())
                    .as(entry.properties().get(0).name() + " has a comment above it in config/application.properties")
                    .isNotBlank());
        }
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static String firstCell(String row) {
        return row.split("(?<!\\\\)\\|")[1].strip();
    }
}
