package io.github.scheduledeventsbridge.platform;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.CopyOption;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * What making a file durable and private takes on the file system a path is on. The default file system follows
 * the OS (told once from {@code os.name}); another one (an in-memory one in tests) follows its own path rules: a
 * backslash separator means Windows'.
 * <ul>
 *   <li>A file is forced through a channel opened for writing: Windows' FlushFileBuffers needs write access, and
 *       the JDK silently skips the flush on a read-only handle.</li>
 *   <li>A directory's entries are forced on Linux; Windows cannot open a directory as a file (its file system
 *       journals names itself), so there it is skipped, not failed.</li>
 *   <li>On Windows a rename or delete that meets a sharing violation (antivirus, backup or the search indexer holding
 *       the file open) is tried again for a bounded time; Linux has no such thing, so its errors are final.</li>
 *   <li>On a file system with POSIX permissions, new files are 0600 and new directories 0700 from their creation,
 *       whatever the umask; on Windows the installer's ACLs on the state directory are inherited.</li>
 * </ul>
 */
public final class FileRules {

    private static final Logger LOG = LoggerFactory.getLogger(FileRules.class);
    /** How long a rename or delete waits for another process to let go of a file (Windows). */
    static final Duration SHARING_VIOLATION_PATIENCE = Duration.ofSeconds(5);
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final Set<OpenOption> CREATE_EXCLUSIVELY = Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    private static final FileRules DEFAULT = forFileSystem(FileSystems.getDefault(),
            OperatingSystem.current() == OperatingSystem.WINDOWS);

    private final boolean windows;
    private final boolean posixPermissions;
    private final Duration patience;

    FileRules(boolean windows, boolean posixPermissions, Duration patience) {
        this.windows = windows;
        this.posixPermissions = posixPermissions;
        this.patience = patience;
    }

    /** The rules of the file system {@code path} is on. */
    public static FileRules of(Path path) {
        FileSystem fileSystem = path.getFileSystem();
        return fileSystem == FileSystems.getDefault() ? DEFAULT
                : forFileSystem(fileSystem, fileSystem.getSeparator().equals("\\"));
    }

    private static FileRules forFileSystem(FileSystem fileSystem, boolean windows) {
        return new FileRules(windows, fileSystem.supportedFileAttributeViews().contains("posix"),
                windows ? SHARING_VIOLATION_PATIENCE : Duration.ZERO);
    }

    public boolean windows() {
        return windows;
    }

    /** A new file for writing, never one that exists nor through a symbolic link, readable by its owner only. */
    public FileChannel createExclusively(Path file) throws IOException {
        return posixPermissions ? FileChannel.open(file, CREATE_EXCLUSIVELY, PRIVATE_FILE)
                : FileChannel.open(file, CREATE_EXCLUSIVELY);
    }

    /** Directories (and missing parents) made 0700 where permissions are POSIX; existing ones are left as they are. */
    public void createDirectories(Path directory) throws IOException {
        if (posixPermissions) {
            Files.createDirectories(directory, PRIVATE_DIRECTORY);
        } else {
            Files.createDirectories(directory);
        }
    }

    /** The mode of a directory that other users may enter or read (POSIX), to warn about; empty when private. */
    public Optional<String> openToOthers(Path directory) {
        if (!posixPermissions) {
            return Optional.empty();
        }
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(directory);
            boolean open = mode.stream().anyMatch(p -> !p.name().startsWith("OWNER_"));
            return open ? Optional.of(PosixFilePermissions.toString(mode)) : Optional.empty();
        } catch (IOException | UnsupportedOperationException unknown) {
            return Optional.empty();
        }
    }

    /** Forces a file's content to disk. */
    public void forceFile(Path file) throws IOException {
        retried("force", file, () -> {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.force(true);
            } catch (AccessDeniedException notWritable) {
                if (windows) {
                    throw notWritable;
                }
                // fsync(2) works on any descriptor: a file the agent may only read (left by root) is still forced.
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    channel.force(true);
                }
            }
            return null;
        });
    }

    /** Forces a directory's entries (names) to disk where the OS can; Windows cannot open a directory. */
    public void syncDirectory(Path directory) throws IOException {
        if (windows) {
            return;
        }
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    public void move(Path source, Path target, CopyOption... options) throws IOException {
        retried("rename", source, () -> Files.move(source, target, options));
    }

    public boolean deleteIfExists(Path file) throws IOException {
        return retried("delete", file, () -> Files.deleteIfExists(file));
    }

    private interface FileOperation<T> {
        T run() throws IOException;
    }

    /** On Windows, a sharing violation is tried again, after 10, 20, 40 … 500 ms, for {@link #patience} in all. */
    private <T> T retried(String what, Path file, FileOperation<T> operation) throws IOException {
        long deadline = System.nanoTime() + patience.toNanos();
        long pause = 10;
        int attempts = 1;
        while (true) {
            try {
                T result = operation.run();
                if (attempts > 1) {
                    LOG.debug("{} {} succeeded at attempt {} (the file was held by another process)", what, file, attempts);
                }
                return result;
            } catch (FileSystemException e) {
                if (!windows || !sharingViolation(e) || System.nanoTime() + pause * 1_000_000 - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                pause = Math.min(pause * 2, 500);
                attempts++;
            }
        }
    }

    /**
     * Windows reports a file held open by another process as access denied (ERROR_ACCESS_DENIED, also for a name
     * whose delete is pending) or as a plain FileSystemException (ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION).
     * The JDK's subclasses (no such file, already exists, not empty, ...) say something final.
     */
    static boolean sharingViolation(FileSystemException e) {
        return e instanceof AccessDeniedException || e.getClass() == FileSystemException.class;
    }
}
