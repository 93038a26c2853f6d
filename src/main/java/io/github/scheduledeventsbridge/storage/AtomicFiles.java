package io.github.scheduledeventsbridge.storage;

import io.github.scheduledeventsbridge.platform.FileRules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.CopyOption;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Replace-by-rename: a reader (or a restart after kill -9 or power loss) sees either the old file or
 * the new one, never half of one. A failed write (disk full) leaves the old file untouched.
 *
 * <p>Every file the agent keeps goes through here, and so through the rules of its file system ({@link FileRules}):
 * the temporary file is created exclusively under a random name (never through a link someone planted at a
 * predictable one), readable by its owner only, forced through a channel opened for writing; renames and deletes
 * wait out Windows' sharing violations.
 */
public final class AtomicFiles {

    private static final Logger LOG = LoggerFactory.getLogger(AtomicFiles.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Temporary files whose delete failed (a read-only moment): tried again before every later write. */
    private static final Set<Path> UNDELETED = ConcurrentHashMap.newKeySet();

    private AtomicFiles() {
    }

    public static void write(Path target, byte[] content) throws IOException {
        write(target, content, true);
    }

    /**
     * With {@code durable=false} the content is not forced to disk before the rename: the caller
     * forces it later with {@link #force}, typically many files at once, while something else (the
     * journal's outbox) still holds the data.
     */
    public static void write(Path target, byte[] content, boolean durable) throws IOException {
        write(target, content, durable, true);
    }

    /**
     * Like {@link #write(Path, byte[], boolean)}, but fails with FileAlreadyExistsException instead of
     * replacing an existing target (callers are single writers of their directory).
     */
    public static void writeNew(Path target, byte[] content, boolean durable) throws IOException {
        write(target, content, durable, false);
    }

    private static void write(Path target, byte[] content, boolean durable, boolean replace) throws IOException {
        deleteUndeleted();
        FileRules rules = FileRules.of(target);
        Path tmp = target.resolveSibling("." + target.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36)
                + ".tmp");
        boolean created = false;
        try {
            try (FileChannel channel = rules.createExclusively(tmp)) {
                created = true;
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                if (durable) {
                    channel.force(true);
                }
            }
            if (replace) {
                rules.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                // Without options the JDK refuses an existing target, then renames (atomically on one file system).
                rules.move(tmp, target);
            }
        } catch (IOException | RuntimeException e) {
            if (created) {
                discard(rules, tmp);
            }
            throw e;
        }
    }

    private static void discard(FileRules rules, Path tmp) {
        try {
            rules.deleteIfExists(tmp);
        } catch (IOException | RuntimeException e) {
            UNDELETED.add(tmp);
            LOG.debug("Temporary file {} not deleted yet ({}); tried again with the next write", tmp, e.getMessage());
        }
    }

    private static void deleteUndeleted() {
        for (Path tmp : UNDELETED) {
            try {
                FileRules.of(tmp).deleteIfExists(tmp);
                UNDELETED.remove(tmp);
            } catch (IOException | RuntimeException stillFailing) {
                // Tried again with the next write.
            }
        }
    }

    /** Forces a file, or a directory's entries where the OS can (not on Windows), to disk. */
    public static void force(Path path) throws IOException {
        FileRules rules = FileRules.of(path);
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            rules.syncDirectory(path);
        } else {
            rules.forceFile(path);
        }
    }

    /** A rename that waits out another process holding the file (Windows). */
    public static void move(Path source, Path target, CopyOption... options) throws IOException {
        FileRules.of(source).move(source, target, options);
    }

    /** A delete that waits out another process holding the file (Windows). */
    public static boolean deleteIfExists(Path file) throws IOException {
        return FileRules.of(file).deleteIfExists(file);
    }

    /** Directories the agent makes for its files: private (0700) where permissions are POSIX. */
    public static Path createDirectories(Path directory) throws IOException {
        FileRules.of(directory).createDirectories(directory);
        return directory;
    }

    /**
     * At start, before any route or port runs: the temporary files a crash (or a failed delete) left in the state
     * directory, its spools and dead letters are deleted; their targets are whole, or were never written.
     */
    public static void removeLeftovers(Path stateDir) throws IOException {
        if (!Files.isDirectory(stateDir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(stateDir, 4)) {
            for (Path file : files.filter(AtomicFiles::isTemporary).toList()) {
                deleteIfExists(file);
                LOG.debug("Left-over temporary file {} deleted", file);
            }
        }
    }

    private static boolean isTemporary(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        return name.startsWith(".") && name.endsWith(".tmp") && !Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS);
    }
}
