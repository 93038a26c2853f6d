package io.github.scheduledeventsbridge.windows.install;

import io.github.scheduledeventsbridge.windows.ServiceOptions;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * install.ps1's decisions, made in Java on the VM's Java: the script hands over what Windows reports (on standard
 * input, UTF-8, one tab-separated fact a line) and applies the plan this prints (standard output, UTF-8, one
 * tab-separated step a line). Nothing passes through a file another user could write. A refusal is a
 * {@code refuse} line the script stops on; exit code 2 is a misuse of this command.
 *
 * <pre>
 * java [--program-files DIR] [--requested HOME] [--candidate HOME]...     which Java to copy as the service's runtime
 * folder --path DIR --service NAME [--trust-existing] [--program]        the data (or program) folder
 *        stdin: ancestor|folder PATH REPARSE(0|1) SDDL; entry RELATIVE d|f REPARSE SDDL; unreadable RELATIVE
 * service --install-dir DIR --data-dir DIR --jvm-options FILE            procrun's options
 *        stdin: current Options9 VALUE (what the service's registry holds now)
 * settings --properties FILE                                             Event Log source, firewall, warnings
 *        stdin: machine-variable NAME VALUE
 * service-sid --service NAME                                             NT SERVICE\NAME's SID
 * </pre>
 */
public final class InstallPlanner {

    private InstallPlanner() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        try {
            List<String> facts = args.length > 0 && !args[0].equals("java") && !args[0].equals("service-sid")
                    ? facts(new InputStreamReader(System.in, StandardCharsets.UTF_8)) : List.of();
            plan(args, facts, LocalDateTime.now()).forEach(out::println);
        } catch (IllegalArgumentException misuse) {
            System.err.println("install planner: " + misuse.getMessage());
            System.exit(2);
        }
    }

    static List<String> plan(String[] args, List<String> facts, LocalDateTime now) throws IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("java, folder, service or settings?");
        }
        return switch (args[0]) {
            case "java" -> java(args);
            case "folder" -> folder(args, facts, now);
            case "service" -> service(args, facts);
            case "settings" -> settings(args, facts);
            case "service-sid" -> List.of(ServiceSid.of(required(args, "--service")));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        };
    }

    private static List<String> java(String[] args) {
        Optional<String> requested = option(args, "--requested");
        if (requested.isPresent()) {
            return JavaRuntimes.read(Path.of(requested.get()))
                    .filter(j -> j.version().feature() >= JavaRuntimes.MINIMUM_FEATURE)
                    .map(InstallPlanner::javaLine)
                    .map(List::of)
                    .orElse(List.of("refuse\t-JavaHome " + requested.get() + " is not a Java "
                            + JavaRuntimes.MINIMUM_FEATURE + " or newer (no bin\\server\\jvm.dll, or its release file "
                            + "names an older version)"));
        }
        List<Path> homes = new ArrayList<>(options(args, "--candidate").stream().map(Path::of).toList());
        option(args, "--program-files").ifPresent(p -> homes.addAll(JavaRuntimes.installed(Path.of(p))));
        return List.of(JavaRuntimes.newest(homes).map(InstallPlanner::javaLine)
                .orElse("refuse\tNo Java " + JavaRuntimes.MINIMUM_FEATURE + " or newer was found (JAVA_HOME, PATH, "
                        + "Program Files)"));
    }

    private static String javaLine(JavaRuntimes.Java java) {
        return "java\t" + java.home() + "\t" + java.version();
    }

    private static List<String> folder(String[] args, List<String> facts, LocalDateTime now) {
        String path = required(args, "--path");
        List<DataFolderPlan.Item> ancestors = new ArrayList<>();
        Optional<DataFolderPlan.Item> folder = Optional.empty();
        Map<String, DataFolderPlan.Item> entries = new LinkedHashMap<>();
        for (String fact : facts) {
            String[] f = fact.split("\t", -1);
            switch (f[0]) {
                case "ancestor" -> ancestors.add(new DataFolderPlan.Item(f[1], false, f[2].equals("1"), f[3]));
                case "folder" -> folder = Optional.of(new DataFolderPlan.Item(f[1], true, f[2].equals("1"), f[3]));
                case "entry" -> entries.put(f[1], new DataFolderPlan.Item(f[1], f[2].equals("d"), f[3].equals("1"),
                        f[4].isEmpty() ? null : f[4]));
                case "unreadable" -> {
                    if (f[1].equals(".")) {
                        entries.put(".", new DataFolderPlan.Item(".", true, false, null));
                    } else {
                        entries.computeIfPresent(f[1],
                                (k, e) -> new DataFolderPlan.Item(k, e.directory(), e.reparsePoint(), null));
                    }
                }
                default -> throw new IllegalArgumentException("unknown fact " + f[0]);
            }
        }
        if (flag(args, "--program")) {
            return DataFolderPlan.programFolderRefusals(path, ancestors, folder);
        }
        String suffix = ".untrusted-" + now.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return new DataFolderPlan(required(args, "--service"), flag(args, "--trust-existing"), suffix)
                .plan(path, ancestors, folder, List.copyOf(entries.values()));
    }

    private static List<String> service(String[] args, List<String> facts) throws IOException {
        Path file = Path.of(required(args, "--jvm-options"));
        List<String> options;
        try {
            options = ServiceOptions.readArgumentFile(JvmOptionsFile.decode(Files.readAllBytes(file), file.toString()));
        } catch (IllegalArgumentException refused) {
            String message = refused.getMessage();
            return List.of("refuse\t" + (message.startsWith(file.toString()) ? message : file + ": " + message));
        }
        List<String> current9 = facts.stream().map(f -> f.split("\t", -1))
                .filter(f -> f[0].equals("current") && f[1].equals("Options9")).map(f -> f[2]).toList();
        ServiceOptions service = new ServiceOptions(required(args, "--install-dir"), required(args, "--data-dir"),
                required(args, "--install-dir") + "\\runtime\\bin\\server\\jvm.dll", options);
        List<String> arguments;
        try {
            arguments = service.procrunArguments();
        } catch (IllegalArgumentException refused) {
            return List.of("refuse\t" + file + ": " + refused.getMessage());
        }
        List<String> plan = new ArrayList<>();
        if (!current9.isEmpty() && service.java9Options().isEmpty()) {
            // procrun's --JvmOptions9 replaces a list only with a value: an emptied list goes from the registry.
            plan.add("clear-registry-value\tOptions9");
        }
        arguments.forEach(a -> plan.add("option\t" + a));
        return plan;
    }

    private static List<String> settings(String[] args, List<String> facts) throws IOException {
        Path file = Path.of(required(args, "--properties"));
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            properties.load(reader);
        }
        Map<String, String> machine = new LinkedHashMap<>();
        facts.stream().map(f -> f.split("\t", 3)).filter(f -> f[0].equals("machine-variable") && f.length == 3)
                .filter(f -> f[1].regionMatches(true, 0, "BRIDGE_", 0, 7)).forEach(f -> machine.put(f[1], f[2]));
        return new ServiceSettings(properties, machine).plan();
    }

    static List<String> facts(Reader input) throws IOException {
        List<String> lines = new ArrayList<>();
        BufferedReader reader = new BufferedReader(input);
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (lines.isEmpty() && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            if (!line.isBlank()) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static Optional<String> option(String[] args, String name) {
        List<String> values = options(args, name);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(values.size() - 1));
    }

    private static List<String> options(String[] args, String name) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i + 1 < args.length; i++) {
            if (args[i].equals(name) && !args[i + 1].isEmpty()) {
                values.add(args[++i]);
            }
        }
        return values;
    }

    private static String required(String[] args, String name) {
        return option(args, name).orElseThrow(() -> new IllegalArgumentException(name + " is missing"));
    }

    private static boolean flag(String[] args, String name) {
        return List.of(args).contains(name);
    }
}
