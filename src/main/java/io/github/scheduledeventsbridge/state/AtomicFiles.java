package io.github.scheduledeventsbridge.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replace-by-rename: a reader (or a restart after kill -9 or power loss) sees either the old file or
 * the new one, never half of one. A failed write (disk full) leaves the old file untouched.
 */
public final class AtomicFiles {

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
        Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                if (durable) {
                    channel.force(true);
                }
            }
            if (replace) {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                // Without options the JDK refuses an existing target, then renames (atomically on one file system).
                Files.move(tmp, target);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** Forces a file (or a directory's entries) to disk. */
    public static void force(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
