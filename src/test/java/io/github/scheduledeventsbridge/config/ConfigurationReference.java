package io.github.scheduledeventsbridge.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The key tables of docs/configuration.md, rendered from config/application.properties: one table per
 * {@code ## --- Section ---} heading, one row per key (keys listed right below another share its row and its
 * comment), the comment above a key as its meaning, a comment block followed by a blank line as a note under
 * the table. ConfigurationReferenceTest compares the page with this and rewrites it with -Ddocs.update=true.
 */
final class ConfigurationReference {

    static final String BEGIN = "<!-- BEGIN GENERATED from config/application.properties by ConfigurationReferenceTest."
            + " Do not edit: change the properties file and run " + ConfigurationReference.COMMAND + " -->";
    static final String END = "<!-- END GENERATED -->";
    static final String COMMAND = "mvn -B -q test -Dtest=ConfigurationReferenceTest -Ddocs.update=true";

    /** Key names and environment names inside a comment are set as code. */
    private static final Pattern CODE = Pattern.compile(
            "(?<![A-Za-z0-9.])(?:(?:bridge|camel)\\.[a-z][a-z0-9.-]*[a-z0-9](?:=[A-Za-z0-9_:/.-]*[A-Za-z0-9_/])?|BRIDGE_[A-Z0-9_]+)");

    record Property(String name, String value) {
    }

    /** Keys that share one comment, and that comment. */
    record Entry(List<Property> properties, String meaning) {
    }

    /** A comment block followed by a blank line is a note: before the table when no key came yet, else after it. */
    record Section(String title, List<String> intro, List<Entry> entries, List<String> notes) {
    }

    private ConfigurationReference() {
    }

    static List<Section> sections(List<String> lines) {
        List<Section> sections = new ArrayList<>();
        Section section = null;
        List<String> comment = new ArrayList<>();
        boolean afterKey = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith("##")) {
                section = new Section(line.replaceAll("^#+\\s*-*\\s*", "").replaceAll("\\s*-*$", ""),
                        new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                sections.add(section);
                comment.clear();
                afterKey = false;
            } else if (line.startsWith("#")) {
                comment.add(line.substring(1).strip());
                afterKey = false;
            } else if (line.isEmpty()) {
                if (section != null && !comment.isEmpty()) {
                    (section.entries().isEmpty() ? section.intro() : section.notes()).add(String.join(" ", comment));
                }
                comment.clear();
                afterKey = false;
            } else if (section != null) {
                StringBuilder logical = new StringBuilder(line);
                while (logical.toString().endsWith("\\") && i + 1 < lines.size()) {
                    logical.setLength(logical.length() - 1);
                    logical.append(lines.get(++i).strip());
                }
                int eq = logical.indexOf("=");
                Property property = new Property(logical.substring(0, eq).strip(), logical.substring(eq + 1).strip());
                if (comment.isEmpty() && afterKey) {
                    section.entries().get(section.entries().size() - 1).properties().add(property);
                } else {
                    section.entries().add(new Entry(new ArrayList<>(List.of(property)), String.join(" ", comment)));
                }
                comment.clear();
                afterKey = true;
            }
        }
        return sections;
    }

    /** The Markdown between the BEGIN and END markers. */
    static String render(List<String> propertiesLines) {
        StringBuilder out = new StringBuilder();
        for (Section section : sections(propertiesLines)) {
            out.append("\n### ").append(section.title()).append("\n\n");
            for (String intro : section.intro()) {
                out.append(markdown(intro)).append("\n\n");
            }
            out.append("| key | default | environment variable | meaning |\n|---|---|---|---|\n");
            for (Entry entry : section.entries()) {
                List<String> names = new ArrayList<>();
                List<String> defaults = new ArrayList<>();
                List<String> variables = new ArrayList<>();
                for (Property p : entry.properties()) {
                    names.add("`" + p.name() + "`");
                    defaults.add(p.value().isEmpty() ? "*empty*" : "`" + p.value().replace("|", "\\|") + "`");
                    variables.add(p.name().startsWith("bridge.") ? "`" + ConfigKeys.environmentName(p.name()) + "`" : "—");
                }
                out.append("| ").append(String.join("<br>", names)).append(" | ").append(String.join("<br>", defaults))
                        .append(" | ").append(String.join("<br>", variables)).append(" | ")
                        .append(markdown(entry.meaning())).append(" |\n");
            }
            for (String note : section.notes()) {
                out.append('\n').append(markdown(note)).append('\n');
            }
        }
        return out.append('\n').toString();
    }

    /** The page with its generated part replaced. */
    static String replaceGenerated(String page, String generated) {
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException("docs/configuration.md has lost its markers " + BEGIN + " ... " + END);
        }
        return page.substring(0, begin + BEGIN.length()) + "\n" + generated + page.substring(end);
    }

    static String generatedPart(String page) {
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        return begin < 0 || end < begin ? "" : page.substring(begin + BEGIN.length() + 1, end);
    }

    /** A comment as table text: keys as code, Markdown's and HTML's special characters escaped elsewhere. */
    static String markdown(String comment) {
        StringBuilder out = new StringBuilder();
        Matcher m = CODE.matcher(comment);
        int at = 0;
        while (m.find()) {
            out.append(escape(comment.substring(at, m.start()))).append('`').append(m.group()).append('`');
            at = m.end();
        }
        return out.append(escape(comment.substring(at))).toString();
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")
                .replace("<", "&lt;").replace(">", "&gt;");
    }
}
