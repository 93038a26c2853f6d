package io.github.scheduledeventsbridge;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's packages stand on floors (docs/architecture.md): no package depends, directly or round about, on one
 * that depends on it. Read from the compiled classes by the JDK's own jdeps, as a reviewer would.
 */
class PackageFloorsTest {

    private static final String ROOT = "io.github.scheduledeventsbridge";
    private static final Pattern EDGE = Pattern.compile("^\\s+(" + Pattern.quote(ROOT) + "[.a-z0-9]*)\\s+->\\s+("
            + Pattern.quote(ROOT) + "[.a-z0-9]*)\\s", Pattern.MULTILINE);

    @Test
    void noPackageDependsOnOneThatDependsOnIt() {
        Map<String, Set<String>> uses = dependencies(Path.of("target", "classes"));
        assertThat(uses).as("jdeps found the agent's packages").containsKeys(ROOT, ROOT + ".delivery", ROOT + ".storage");
        List<Set<String>> cycles = cycles(uses);
        assertThat(cycles).as("packages that depend on each other").isEmpty();
    }

    @Test
    void aCycleIsFound() {
        Map<String, Set<String>> uses = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a", "d"), "d", Set.of());
        assertThat(cycles(uses)).containsExactly(new TreeSet<>(List.of("a", "b", "c")));
    }

    private static Map<String, Set<String>> dependencies(Path classes) {
        assertThat(Files.isDirectory(classes)).as(classes + " (compiled before the tests)").isTrue();
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-filter:none",
                classes.toString());
        assertThat(code).as(err.toString()).isZero();
        Map<String, Set<String>> uses = new HashMap<>();
        Matcher edge = EDGE.matcher(out.toString());
        while (edge.find()) {
            uses.computeIfAbsent(edge.group(1), p -> new HashSet<>());
            uses.computeIfAbsent(edge.group(2), p -> new HashSet<>());
            if (!edge.group(1).equals(edge.group(2))) {
                uses.get(edge.group(1)).add(edge.group(2));
            }
        }
        return uses;
    }

    /** The strongly connected components of more than one package (Tarjan). */
    static List<Set<String>> cycles(Map<String, Set<String>> uses) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        List<String> stack = new ArrayList<>();
        List<Set<String>> found = new ArrayList<>();
        for (String start : new TreeSet<>(uses.keySet())) {
            if (!index.containsKey(start)) {
                visit(start, uses, index, low, stack, found);
            }
        }
        return found;
    }

    private static void visit(String node, Map<String, Set<String>> uses, Map<String, Integer> index,
                              Map<String, Integer> low, List<String> stack, List<Set<String>> found) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.add(node);
        for (String next : uses.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                visit(next, uses, index, low, stack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (stack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.remove(stack.size() - 1);
                component.add(member);
            } while (!member.equals(node));
            if (component.size() > 1) {
                found.add(component);
            }
        }
    }
}
