package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What is in the spool root at start, besides the configured sinks' own directories. A directory that no
 * configured sink owns (a target removed from the configuration, or renamed) is reported and kept, never
 * deleted: its messages are not sent anywhere until an operator moves them. Spools of this sink under the
 * name an earlier version gave it ({@code legacyIds}: webhook spools used to be named after the whole URL)
 * are taken over.
 */
public final class SpoolInventory {

    private static final Logger LOG = LoggerFactory.getLogger(SpoolInventory.class);

    private final Path root;
    private final SinkRegistry sinks;
    private final DeadLetters deadLetters;
    private final Map<String, String> legacyIds;
    private final Map<String, Long> orphaned = new TreeMap<>();

    /** {@code legacyIds}: a sink's former directory name → its id now. */
    public SpoolInventory(Path root, SinkRegistry sinks, DeadLetters deadLetters, Map<String, String> legacyIds) {
        this.root = root;
        this.sinks = sinks;
        this.deadLetters = deadLetters;
        this.legacyIds = Map.copyOf(legacyIds);
    }

    /** Start-up step, before the spooled messages are queued again. */
    public synchronized void survey() throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        Set<String> configured = sinks.sinks().stream().map(Sink::id).collect(Collectors.toSet());
        for (Map.Entry<String, String> legacy : legacyIds.entrySet()) {
            if (!legacy.getKey().equals(legacy.getValue()) && !configured.contains(legacy.getKey())) {
                adopt(root.resolve(legacy.getKey()), root.resolve(legacy.getValue()));
            }
        }
        for (Sink sink : sinks.sinks()) {
            deadLetters.countExisting(sink.id(), root.resolve(sink.id()));
        }
        orphaned.clear();
        try (Stream<Path> directories = Files.list(root)) {
            for (Path directory : directories.filter(Files::isDirectory).sorted().toList()) {
                String name = directory.getFileName().toString();
                long waiting = messages(directory);
                if (!configured.contains(name) && waiting > 0) {
                    orphaned.put(name, waiting);
                    LOG.warn("Spool directory {} belongs to no configured sink: {} undelivered message(s) kept there, "
                            + "not sent. To send them, move the files into the spool directory of a configured sink "
                            + "(its id is logged at start as 'Sink <id>') and restart", directory, waiting);
                }
            }
        }
    }

    /** Undelivered messages per directory that no configured sink owns. */
    public synchronized Map<String, Long> orphaned() {
        return Map.copyOf(orphaned);
    }

    public synchronized long orphaned(String directory) {
        return orphaned.getOrDefault(directory, 0L);
    }

    /** Moves a former spool's messages (and dead letters) under the sink's current name; a name already there stays. */
    private static void adopt(Path legacy, Path current) throws IOException {
        if (!Files.isDirectory(legacy)) {
            return;
        }
        long moved = move(legacy, current) + move(legacy.resolve(DeadLetters.DIRECTORY), current.resolve(DeadLetters.DIRECTORY));
        if (moved > 0) {
            LOG.info("Spool {} taken over as {} ({} file(s)): the directory name no longer depends on the URL's "
                    + "query or credentials", legacy.getFileName(), current.getFileName(), moved);
        }
    }

    private static long move(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return 0;
        }
        long moved = 0;
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path target = to.resolve(file.getFileName());
                AtomicFiles.createDirectories(to);
                if (!Files.exists(target)) {
                    AtomicFiles.move(file, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    moved++;
                }
            }
        }
        return moved;
    }

    private static long messages(Path directory) throws IOException {
        long messages = 0;
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".json")) {
                    messages++;
                } else if (name.endsWith(SpoolDocument.SUFFIX)) {
                    messages += SpoolDocument.messages(Files.readAllBytes(file)).size();
                }
            }
        }
        return messages;
    }
}
